"""Text from the model or the workspace, made safe to print on a terminal.

A terminal obeys what it is sent: an escape sequence can erase the line above,
move the cursor, set the title, write the clipboard (OSC 52) or hide a link,
and a carriage return writes over what was printed. A command shown for
approval could then read ``git status`` while it runs ``touch pwned``. So every
control character the model or the workspace sent is printed as an escape the
person can read (``\\x1b``, ``\\r``, ``\\x07``): C0 controls, DEL, the C1
controls (some terminals take U+009B as CSI and U+009D as OSC) and the
bidirectional overrides and isolates, which reorder what a line seems to say.
Tab is kept, and newline in text of several lines; nothing else passes, so no
sequence (OSC included) reaches the terminal whole.
"""

from __future__ import annotations

import re
import sys

_NAMED = {"\r": "\\r", "\n": "\\n"}
_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_CONTROLS = [*range(0x00, 0x20), *range(0x7F, 0xA0)]


def _escape(code: int) -> str:
    char = chr(code)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _table(kept: str) -> dict[int, str]:
    return {code: _escape(code) for code in (*_CONTROLS, *_BIDI) if chr(code) not in kept}


_LINES = _table("\n\t")
_ONE_LINE = _table("\t")


def _finder(table: dict[int, str]) -> re.Pattern[str]:
    return re.compile("[" + "".join(re.escape(chr(code)) for code in table) + "]")


_IN_LINES, _IN_ONE_LINE = _finder(_LINES), _finder(_ONE_LINE)


def visible(text: str) -> str:
    """``text`` with every control character but newline and tab shown as an escape."""
    if _IN_LINES.search(text) is None:  # the usual case: nothing to change, no copy
        return text
    return text.translate(_LINES)


def one_line(text: str) -> str:
    """As ``visible``, and a newline shown as ``\\n``: for a row that must stay one line."""
    if _IN_ONE_LINE.search(text) is None:
        return text
    return text.translate(_ONE_LINE)


# JSON writes C0 controls as escapes already; the rest become \\uXXXX, the same value.
_JSON = {code: f"\\u{code:04x}" for code in (*range(0x7F, 0xA0), *_BIDI)}
_IN_JSON = _finder(_JSON)


def json_visible(text: str) -> str:
    """JSON text (``json.dumps``) with the controls JSON leaves raw written as escapes."""
    if _IN_JSON.search(text) is None:
        return text
    return text.translate(_JSON)


def say(message: str) -> None:
    """A message of agentls's on stderr; what it quotes is shown, never obeyed."""
    print(f"agentls: {visible(message)}", file=sys.stderr)
