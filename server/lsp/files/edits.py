"""Building `workspace/applyEdit` payloads: versioned, minimal, optionally annotated."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from agentls.workspace.hunks import Hunk, line_hunks, split_lines

ANNOTATION_ID = "agentls"


def text_edits(
    old: str, new: str, count_units: Callable[[str], int] | None = None, *, annotated: bool
) -> list[types.TextEdit | types.AnnotatedTextEdit]:
    """One whole-line edit per hunk; only the end of a file without a final
    newline needs a column, counted in the client's position units."""
    lines = split_lines(old)
    ends_open = bool(lines) and not lines[-1].endswith(("\n", "\r"))
    edits: list[types.TextEdit | types.AnnotatedTextEdit] = []
    for hunk in line_hunks(old, new):
        range_ = _range(hunk, lines, ends_open, count_units or len)
        if annotated:
            edits.append(
                types.AnnotatedTextEdit(
                    range=range_, new_text=hunk.new_text, annotation_id=ANNOTATION_ID
                )
            )
        else:
            edits.append(types.TextEdit(range=range_, new_text=hunk.new_text))
    return edits


def _range(
    hunk: Hunk, lines: list[str], ends_open: bool, units: Callable[[str], int]
) -> types.Range:
    start = types.Position(hunk.start, 0)
    if ends_open and hunk.end == len(lines):
        last = lines[-1]
        end = types.Position(len(lines) - 1, units(last))
    else:
        end = types.Position(hunk.end, 0)
    return types.Range(start, end)


def annotation(label: str, description: str) -> dict[str, types.ChangeAnnotation]:
    return {
        ANNOTATION_ID: types.ChangeAnnotation(
            label=label, needs_confirmation=True, description=description
        )
    }


def change_counts(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed, for a one-line description of an edit."""
    added = removed = 0
    for hunk in line_hunks(old, new):
        added += len(hunk.new_lines)
        removed += hunk.end - hunk.start
    return added, removed
