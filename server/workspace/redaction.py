"""Masking obvious secrets in tool output before the model or the log sees them.

Known credential formats (API keys and tokens with a recognisable prefix,
private key blocks, URLs with a password, key = value lines whose name says
secret and whose value looks random) are replaced by a marker that keeps the
kind and the first characters, so the model can still tell them apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PREFIXED = re.compile(
    r"""(?x)
    (
        sk-ant-[A-Za-z0-9_\-]{20,}              # Anthropic
      | sk-(?:proj-)?[A-Za-z0-9_\-]{20,}        # OpenAI style
      | (?:AKIA|ASIA)[A-Z0-9]{16}               # AWS access key id
      | gh[pousr]_[A-Za-z0-9]{30,}              # GitHub tokens
      | github_pat_[A-Za-z0-9_]{30,}
      | glpat-[A-Za-z0-9_\-]{20,}               # GitLab
      | xox[abposr]-[A-Za-z0-9\-]{10,}          # Slack
      | AIza[0-9A-Za-z_\-]{35}                  # Google API key
      | npm_[A-Za-z0-9]{36}
      | pypi-[A-Za-z0-9_\-]{50,}
      | eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}   # JWT
    )"""
)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN ([A-Z ]*PRIVATE KEY)-----.*?(?:-----END \1-----|\Z)", re.DOTALL
)
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)([^\s@/]{3,})(@)")
# Matched only where a hint word starts (see _mask_assigned), never scanned.
_ASSIGNED = re.compile(
    r"""(?ix)
    ((?:secret|token|passw(?:or)?d|key)
     [A-Z0-9_.\-]*["']?\s*[:=]\s*["']?)
    ([A-Za-z0-9+/_\-=.]{16,})
    """
)
_ASSIGNED_HINTS = ("secret", "token", "passw", "key")

# Byte-level pictures of the text, for one-pass necessary conditions: every
# prefixed token is a run of at least _SHORTEST_TOKEN [A-Za-z0-9_-] characters
# ("t"), and every assigned secret a run of _SHORTEST_VALUE of those plus
# "+/=." ("v"). A whole prefixed match is such a run too, of at least
# _SHORTEST_MATCH (xoxb- and ten more; a JWT's dots are value characters), so a
# text without a run of that many value characters holds neither kind: plain
# source usually has none, and is read once.
_TOKEN_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_SHAPE = bytes(
    ord("t") if b in _TOKEN_BYTES else ord("+") if b in b"+/=." else ord(" ") for b in range(256)
)
_VALUES = bytes(ord("v") if b in _TOKEN_BYTES + b"+/=." else ord(" ") for b in range(256))
_ONLY_RUNS = bytes.maketrans(b"+", b" ")
_SHORTEST_TOKEN = 13  # a JWT's first part: eyJ and ten more
_LONG_TOKEN = b"t" * _SHORTEST_TOKEN
_SHORTEST_VALUE = 16
_SHORTEST_MATCH = 15
_LONG_VALUE = b"v" * _SHORTEST_MATCH
_PREFIX_HINTS = ("sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
                 "glpat-", "xox", "AIza", "npm_", "pypi-", "eyJ")  # fmt: skip


def _looks_random(value: str) -> bool:
    kinds = sum(
        (any(c.islower() for c in value), any(c.isupper() for c in value),
         any(c.isdigit() for c in value))
    )  # fmt: skip
    return kinds >= 2 and len(set(value)) >= 8


def mask_secrets(text: str) -> tuple[str, int]:
    """The text with secrets masked, and how many were."""
    count = 0

    def prefixed(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"{match.group(1)[:6]}…[secret masked]"

    def private_key(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"-----[{match.group(1)} masked]-----"

    def url(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"{match.group(1)}[password masked]{match.group(3)}"

    def assigned(match: re.Match[str]) -> str:
        nonlocal count
        if not _looks_random(match.group(2)):
            return match.group(0)
        count += 1
        return f"{match.group(1)}[secret masked]"

    # Cheap checks first: most output holds none of these, and the full
    # patterns cost hundreds of microseconds on a long result.
    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY.sub(private_key, text)
    if "/" in text and "://" in text:  # one char is a memchr, three a slower search
        text = _URL_PASSWORD.sub(url, text)
    # One byte per character (non-ASCII ones become "?"), so offsets match the str.
    raw = text.encode("ascii", "replace")
    values = raw.translate(_VALUES)
    if _LONG_VALUE not in values:
        return text, count  # no prefixed token, no assigned secret
    shape = raw.translate(_SHAPE)
    if _LONG_TOKEN in shape:
        masked = _mask_long_tokens(text, shape, prefixed)
        if masked is not text:
            text = masked
            values = text.encode("ascii", "replace").translate(_VALUES)
    # An assigned secret needs ":" or "="; one-character checks are a memchr each.
    if ("=" in text or ":" in text) and b"v" * _SHORTEST_VALUE in values:
        text = _mask_at(text, text.lower(), _ASSIGNED_HINTS, _ASSIGNED, assigned)
    return text, count


def _find_all(text: str, needle: str) -> list[int]:
    found = []
    index = text.find(needle)
    while index != -1:
        found.append(index)
        index = text.find(needle, index + 1)
    return found


def _mask_at(
    text: str,
    searched: str,
    hints: tuple[str, ...],
    pattern: re.Pattern[str],
    replace: Callable[[re.Match[str]], str],
) -> str:
    """Try ``pattern`` only where a hint starts: scanning every position is ~50x slower."""
    starts = sorted(index for hint in hints for index in _find_all(searched, hint))
    pieces: list[str] = []
    done = 0
    for index in starts:
        if index < done:
            continue
        match = pattern.match(text, index)
        if match is None:
            continue
        pieces += [text[done:index], replace(match)]
        done = match.end()
    return "".join(pieces) + text[done:] if pieces else text


def _mask_long_tokens(text: str, shape: bytes, replace: Callable[[re.Match[str]], str]) -> str:
    """Prefixed tokens, looked for only at the start of long token runs;
    bytes.find over ``shape`` walks the runs at C speed."""
    runs = shape.translate(_ONLY_RUNS)
    pieces: list[str] = []
    done = 0
    index = runs.find(_LONG_TOKEN)
    while index != -1:
        start = runs.rfind(b" ", 0, index) + 1  # both stop at the run's own edge
        end = runs.find(b" ", index)
        end = len(runs) if end == -1 else end
        if text.startswith(_PREFIX_HINTS, start):
            match = _PREFIXED.match(text, start)
            if match is not None:
                pieces += [text[done:start], replace(match)]
                done = match.end()
        index = runs.find(_LONG_TOKEN, end)
    return "".join(pieces) + text[done:] if pieces else text
