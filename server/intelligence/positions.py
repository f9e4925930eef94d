"""LSP positions count UTF-16 code units; tools count characters."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from lsprotocol import types


def utf16_column(line_text: str, column: int) -> int:
    """The UTF-16 offset of the character at ``column`` on the line."""
    return len(line_text[:column].encode("utf-16-le")) // 2


def char_offset(text: str, position: types.Position) -> int:
    """The character offset in ``text`` of an LSP position (clamped to the text)."""
    lines = text.splitlines(keepends=True)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    line = lines[position.line].rstrip("\r\n")
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line)


def apply_edits(text: str, edits: Iterable[types.TextEdit]) -> str:
    """Apply a server's non-overlapping edits, last first so offsets stay valid."""
    spans = sorted(
        (
            (char_offset(text, e.range.start), char_offset(text, e.range.end), e.new_text)
            for e in edits
        ),
        key=lambda span: (span[0], span[1]),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def line_at(text: str, line: int) -> str:
    """The 0-based line ``line`` of the text, without its line break ('' past the end)."""
    lines = text.splitlines()
    return lines[line] if 0 <= line < len(lines) else ""


def from_fs_path(path: str) -> str:
    return Path(path).as_uri()


def to_fs_path(uri: str) -> str | None:
    """The file path of a file: URI (None for other schemes)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return unquote(parsed.path)
