"""Minimal line hunks between two texts, for editors that apply edits.

A one-line change in a 20,000-line file is one hunk of one line: the common
prefix and suffix are cut first (linear), and only the middle goes through
difflib. Hunks replace whole lines, so their positions need no column
arithmetic except where a file does not end with a newline. Unified diffs
(for reviews and tool results) are here too, below the tools and the faces.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

# Above this many differing lines, one hunk over the changed middle is
# cheaper to compute and no worse for a person to review.
MAX_DIFFED_LINES = 5_000


# Lines end at \n, \r\n or \r only, as LSP counts them (str.splitlines would
# also split at \f, \x1c, \u2028... and shift every line number after one).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where an editor splits them."""
    return _LINE.findall(text)


@dataclass(frozen=True, slots=True)
class Hunk:
    """Replace lines [start, end) of the old text (0-based) with ``new_lines``."""

    start: int
    end: int
    new_lines: tuple[str, ...]  # each keeps its line ending

    @property
    def new_text(self) -> str:
        return "".join(self.new_lines)


def line_hunks(old: str, new: str) -> list[Hunk]:
    old_lines = split_lines(old)
    new_lines = split_lines(new)
    prefix = 0
    limit = min(len(old_lines), len(new_lines))
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and old_lines[len(old_lines) - 1 - suffix] == new_lines[len(new_lines) - 1 - suffix]
    ):
        suffix += 1
    old_mid = old_lines[prefix : len(old_lines) - suffix]
    new_mid = new_lines[prefix : len(new_lines) - suffix]
    if not old_mid and not new_mid:
        return []
    if len(old_mid) + len(new_mid) > MAX_DIFFED_LINES:
        return [Hunk(prefix, prefix + len(old_mid), tuple(new_mid))]
    matcher = difflib.SequenceMatcher(a=old_mid, b=new_mid, autojunk=False)
    hunks = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            hunks.append(Hunk(prefix + i1, prefix + i2, tuple(new_mid[j1:j2])))
    return hunks


def apply_hunks(old: str, hunks: list[Hunk]) -> str:
    """The inverse check: applying the hunks to ``old`` gives the new text."""
    lines = split_lines(old)
    for hunk in sorted(hunks, key=lambda h: h.start, reverse=True):
        lines[hunk.start : hunk.end] = hunk.new_lines
    return "".join(lines)


def unified_diff(rel: str, before: str, after: str, labels: tuple[str, str] = ("a", "b")) -> str:
    """``before`` → ``after`` as a unified diff of ``rel``; a missing final newline said."""
    lines = difflib.unified_diff(
        _diff_lines(before),
        _diff_lines(after),
        fromfile=f"{labels[0]}/{rel}",
        tofile=f"{labels[1]}/{rel}",
    )
    return "".join(lines)


def _diff_lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines
