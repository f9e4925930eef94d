"""A secret file's text quoted in a language server's message.

A type checker says what it inferred: `reveal_type(KEY)`, or a type error about
KEY, in any file prints `Literal['sk-live-…']` from the secret file that defines
KEY. What a message quotes (between quotes or backticks, and numbers) is taken
apart into `pieces`: `WINDOW` characters in a row, or a whole quoted value or
number of `SHORT` characters or more. The workspace's secret-named files are
read here (never shown), and a secret file holds a piece when its text has those
characters in a row, or that value between quotes or that number.
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from agentls.workspace.paths import SecretFiles, SecretPaths

WINDOW = 12
SHORT = 6
READ_BYTES = 64 * 1024  # of each secret file: keys, .env files and settings modules fit
FRESH_SECONDS = 30.0  # how long one walk for the secret files serves (their texts: one stat)
WALK_LIMIT = 200_000  # entries looked at before the walk stops (what it found still counts)
SKIP = frozenset({".git", "node_modules", ".venv", "__pycache__"})

_QUOTES = "'\"`"
_NUMBER = re.compile(rf"\d{{{SHORT},}}")
_WHOLE_NUMBER = re.compile(rf"(?<![\w.])\d{{{SHORT},}}(?![\w.])")


def flat(text: str) -> str:
    """Whitespace as servers print it in a message: one space."""
    return " ".join(text.split())


def quoted(text: str) -> list[str]:
    """Every stretch between two quotes of a kind, whichever opens: an apostrophe in
    prose ("can't") or a short quoted name before a value must not hide the value."""
    return [part for q in _QUOTES for part in text.split(q)[1:-1]]


def pieces(message: str) -> set[str]:
    """What the message quotes, in the pieces a secret file is looked up by."""
    message = flat(message)
    found: set[str] = set()
    for text in [*quoted(message), *_NUMBER.findall(message)]:
        if len(text) < SHORT:
            continue
        if len(text) < WINDOW:
            found.add(text)
        else:
            found.update(text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1))
    return found


@dataclass(frozen=True, slots=True)
class _Text:
    stamp: tuple[int, int]  # mtime in ns and size: read again when either moves
    windows: frozenset[str]
    values: frozenset[str]  # its quoted values and numbers shorter than a window


class SecretTexts:
    """The texts of one workspace's secret-named files (`SecretFiles.by_name`), to
    recognise them in messages. `refresh` looks at the disk: call it off the loop."""

    def __init__(self, secrets: SecretFiles) -> None:
        self.secrets = secrets
        self._walked: tuple[float, list[str]] | None = None
        self._texts: dict[str, _Text] = {}

    def refresh(self) -> None:
        now = time.monotonic()
        if self._walked is None or now - self._walked[0] > FRESH_SECONDS:
            self._walked = (now, secret_named(self.secrets.root, self.secrets.by_name))
        texts: dict[str, _Text] = {}
        for rel in self._walked[1]:
            path = self.secrets.root / rel
            try:
                st = os.stat(path)  # a link counts as what it leads to, as the server reads it
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            stamp = (st.st_mtime_ns, st.st_size)
            known = self._texts.get(rel)
            if known is None or known.stamp != stamp:
                known = _read(path, stamp)
            if known is not None:
                texts[rel] = known
        self._texts = texts  # one assignment: a reader on the loop sees the old or the new

    def holding(self, wanted: set[str]) -> list[str]:
        """The secret files that hold any of these pieces."""
        return sorted(
            rel
            for rel, text in self._texts.items()
            if not wanted.isdisjoint(text.windows) or not wanted.isdisjoint(text.values)
        )


def secret_named(root: Path, by_name: SecretPaths) -> list[str]:
    """The workspace's files whose names make them secret (outside `SKIP` folders)."""
    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP]
        seen += len(dirs) + len(files)
        if seen > WALK_LIMIT:
            break
        base = Path(folder).relative_to(root)
        for name in files:
            rel = (base / name).as_posix()
            if by_name.judge(rel):  # a whole tree: not remembered
                found.append(rel)
    return found


def _read(path: Path, stamp: tuple[int, int]) -> _Text | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(READ_BYTES)
    except OSError:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    text = flat(" ".join(lines))
    windows = frozenset(text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1))
    shorts = {flat(v) for line in lines for v in quoted(line)}
    shorts.update(_WHOLE_NUMBER.findall(text))
    return _Text(stamp, windows, frozenset(v for v in shorts if SHORT <= len(v) < WINDOW))
