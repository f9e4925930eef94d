"""A window of a file's lines, read in chunks: the same lines, count and verdict as
splitting the whole text, however the chunks fall."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from agentls.workspace.lines import Line, LineWindow, scan

PIECES = ["a", "bc", "\n", "\r", "\r\n", "é", "😀", "\ufeff", "\0", "x" * 7, "\n\n"]


def split_whole(data: bytes, window: LineWindow) -> tuple[bool, int, list[Line]]:
    """What read_file did before: the whole file decoded and split."""
    if b"\0" in data[:8192]:
        return False, 0, []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False, 0, []
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[-1] == "":
        lines.pop()
    kept: list[Line] = []
    chars = 0
    for number in range(window.start, min(len(lines), window.start - 1 + window.limit) + 1):
        line = lines[number - 1].rstrip("\r")
        kept.append(Line(line[: window.line_chars], len(line)))
        chars += len(kept[-1].text) + 1
        if chars > window.max_chars:
            break
    return True, len(lines), kept


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in pairwise(points)]


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(PIECES), max_size=40),
    broken=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    start=st.integers(min_value=1, max_value=12),
    limit=st.integers(min_value=1, max_value=12),
    max_chars=st.integers(min_value=1, max_value=40),
    line_chars=st.integers(min_value=1, max_value=9),
)
def test_any_chunking_gives_what_the_whole_text_gives(
    pieces: list[str],
    broken: bool,
    cuts: list[int],
    start: int,
    limit: int,
    max_chars: int,
    line_chars: int,
) -> None:
    data = "".join(pieces).encode("utf-8")
    if broken:
        data += b"\xff"
    window = LineWindow(start=start, limit=limit, max_chars=max_chars, line_chars=line_chars)
    found = scan("f", "v1", chunked(data, cuts), window)
    is_text, total, lines = split_whole(data, window)
    assert (found.is_text, found.total_lines, list(found.lines)) == (is_text, total, lines)
    assert found.size == len(data) and found.head == data[:8192]


def test_a_nul_in_the_head_stops_the_read_once_the_head_is_whole() -> None:
    taken: list[int] = []

    def chunks() -> Iterator[bytes]:
        for n in range(1000):
            taken.append(n)
            yield b"\0" * 4096

    found = scan("f", "v", chunks(), LineWindow(1, 5, 1000, 10), size=4096 * 1000)
    assert not found.is_text and found.size == 4096 * 1000 and taken == [0, 1]
    assert found.head == b"\0" * 8192
