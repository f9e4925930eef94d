"""A window of a text file's lines, read without holding the whole file.

`read_file` shows at most a few thousand lines of at most a few thousand characters,
yet says how many lines the file has and whether it is text at all. The file is
read in chunks: each is decoded (UTF-8 throughout, or the file is not text; an
ASCII chunk outside the window is only counted, undecoded), its line ends
counted, and only the window's lines are kept, each cut to its longest shown
length, so a file of any size costs a chunk and the window in memory. A file
whose first bytes hold a NUL is binary: nothing after them is read.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

SNIFF_BYTES = 8192  # a NUL in these makes the file binary
CHUNK_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class LineWindow:
    """Which lines to keep: ``limit`` lines from line ``start`` (1-based), each cut to
    ``line_chars`` characters, until the kept lines hold ``max_chars`` characters (the
    line that passes it is kept too)."""

    start: int
    limit: int
    max_chars: int
    line_chars: int


@dataclass(frozen=True, slots=True)
class Line:
    text: str  # the line without its end ("\n" and any "\r" before it), cut to line_chars
    length: int  # the whole line's length in characters, without its end


@dataclass(frozen=True, slots=True)
class FileLines:
    """A window of one file, as the workspace sees it (an open buffer wins over disk)."""

    path: str  # workspace-relative, posix separators
    version: str  # the same version `Workspace.read` and `Workspace.version` give
    size: int  # bytes
    head: bytes  # the first SNIFF_BYTES bytes, to describe a binary file
    is_text: bool  # UTF-8 throughout, and no NUL in its head
    total_lines: int  # 0 when not text
    lines: tuple[Line, ...]  # the window's lines (none when not text)


def scan(
    path: str, version: str, chunks: Iterable[bytes], window: LineWindow, size: int | None = None
) -> FileLines:
    """The window of the file made of ``chunks``; ``size`` None: their total length."""
    scanner = _Scanner(window)
    seen = 0
    head = b""
    text = True
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    rest: Iterator[bytes] = iter(chunks)
    for chunk in rest:
        seen += len(chunk)
        if len(head) < SNIFF_BYTES:
            head += chunk[: SNIFF_BYTES - len(head)]
            if b"\0" in head:
                text = False
                while len(head) < SNIFF_BYTES:  # the rest of the head, for the description
                    more = next(rest, None)
                    if more is None:
                        break
                    seen += len(more)
                    head += more[: SNIFF_BYTES - len(head)]
                break
        if chunk.isascii() and not decoder.getstate()[0]:  # valid as it is: count the bytes
            ends = chunk.count(b"\n")
            if scanner.passes_over(ends):
                scanner.count_ascii(chunk, ends)
                continue
        try:
            scanner.feed(decoder.decode(chunk))
        except UnicodeDecodeError:
            text = False
            break
    else:
        try:
            scanner.feed(decoder.decode(b"", final=True))
        except UnicodeDecodeError:
            text = False
    if size is None:
        size = seen + sum(len(chunk) for chunk in rest)
    if not text:
        return FileLines(path, version, size, head, False, 0, ())
    scanner.finish()
    return FileLines(path, version, size, head, True, scanner.total(), tuple(scanner.lines))


def scan_bytes(path: str, version: str, data: bytes, window: LineWindow) -> FileLines:
    """The window of a file already in memory."""
    chunks = (data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES))
    return scan(path, version, chunks, window, len(data))


def scan_text(path: str, version: str, text: str, window: LineWindow) -> FileLines:
    """The window of an open buffer's text, encoded a chunk at a time."""
    chunks = (text[i : i + CHUNK_BYTES].encode("utf-8") for i in range(0, len(text), CHUNK_BYTES))
    return scan(path, version, chunks, window)


class _Scanner:
    """Counts lines as the text arrives and keeps the window's lines, cut."""

    def __init__(self, window: LineWindow) -> None:
        self.window = window
        self.end = window.start + window.limit  # the first line number past the window
        self.number = 1  # the line being read
        self.length = 0  # its characters so far, "\r" included
        self.kept: list[str] = []  # its first characters, while it is in the window
        self.kept_chars = 0
        self.returns = 0  # the "\r" characters its text ends with so far
        self.lines: list[Line] = []
        self.chars = 0  # the kept lines' characters, one more for each line end
        self.full = False  # the window is complete: only count from here on
        self.started = False  # a leading byte-order mark is dropped

    def finish(self) -> None:
        """The file ended: a last line without an end is a line too."""
        if self.length > 0 and not self.full and self.window.start <= self.number < self.end:
            self._close_line()

    def total(self) -> int:
        """How many lines: a last line without an end counts, an empty one does not."""
        return self.number - 1 + (self.length > 0)

    def feed(self, text: str) -> None:
        if not self.started and text:
            self.started = True
            text = text.removeprefix("\ufeff")
        position, size = 0, len(text)
        while position < size:
            if self.full or self.number >= self.end:
                self._count(text, position)
                return
            if self.number < self.window.start:
                position = self._skip(text, position)
                continue
            newline = text.find("\n", position)
            piece = text[position:] if newline == -1 else text[position:newline]
            self._keep(piece)
            if newline == -1:
                return
            self._close_line()
            position = newline + 1

    def passes_over(self, ends: int) -> bool:
        """A text of ``ends`` line ends would keep nothing: it is only counted."""
        return self.full or self.number >= self.end or self.number + ends < self.window.start

    def count_ascii(self, chunk: bytes, ends: int) -> None:
        self.started = self.started or bool(chunk)
        if ends:
            self.number += ends
            self.length = len(chunk) - chunk.rfind(b"\n") - 1
        else:
            self.length += len(chunk)

    def _count(self, text: str, position: int) -> None:
        ends = text.count("\n", position)
        if ends:
            self.number += ends
            self.length = len(text) - text.rfind("\n") - 1
        else:
            self.length += len(text) - position

    def _skip(self, text: str, position: int) -> int:
        """Past the lines before the window: to the window's first line, or the text's end."""
        wanted = self.window.start - self.number
        ends = text.count("\n", position)
        if ends < wanted:
            self._count(text, position)
            return len(text)
        for _ in range(wanted):
            position = text.index("\n", position) + 1
        self.number += wanted
        self.length = 0
        return position

    def _keep(self, piece: str) -> None:
        self.length += len(piece)
        room = self.window.line_chars - self.kept_chars
        if room > 0 and piece:
            self.kept.append(piece[:room])
            self.kept_chars += min(room, len(piece))
        stripped = piece.rstrip("\r")
        self.returns = self.returns + len(piece) if not stripped else len(piece) - len(stripped)

    def _close_line(self) -> None:
        shown = self.length - self.returns
        text = "".join(self.kept)[: min(shown, self.window.line_chars)]
        self.lines.append(Line(text, shown))
        self.chars += len(text) + 1
        self.full = self.chars > self.window.max_chars
        self.number += 1
        self.length = self.kept_chars = self.returns = 0
        self.kept = []
