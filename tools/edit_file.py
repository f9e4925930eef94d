"""edit_file: replace exact text in a file, refusing stale or ambiguous edits."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.tools.changes import (
    check_not_stale,
    decode_text,
    landed_note,
    raise_if_rejected,
    remember_version,
    unified_diff,
)
from agentls.workspace.interface import ToolContext, ToolDefinition


class EditFileInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File to edit, relative to the workspace root.")
    old_text: str = Field(
        description=(
            "The exact text to replace, copied from the file including indentation and "
            "line breaks (without read_file's line-number prefixes). It must occur exactly "
            "once unless replace_all is true; include surrounding lines to make it unique."
        )
    )
    new_text: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )


def _validate(params: EditFileInput, ctx: ToolContext) -> None:
    params.path = ctx.workspace.relative(params.path)
    if params.old_text == params.new_text:
        raise ToolError(ErrorCode.INVALID_INPUT, "old_text and new_text are the same")
    if params.old_text == "":
        raise ToolError(
            ErrorCode.INVALID_INPUT,
            "old_text is empty; use write_file to create a file or give text to replace",
        )


def _plan(params: EditFileInput, text: str, rel: str) -> tuple[str, list[int], str, str]:
    """The new text, the offsets replaced, and old/new text in the file's line endings."""
    old, new = params.old_text, params.new_text
    if "\r\n" in text and "\r" not in old:
        # read_file shows CRLF files without "\r"; the model's text uses plain newlines.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    offsets = [m.start() for m in re.finditer(re.escape(old), text)]
    if not offsets:
        hint = ""
        if _squash(old) and _squash(old) in _squash(text):
            hint = (
                " It does match when whitespace is ignored: check indentation, tabs versus "
                "spaces and line breaks."
            )
        raise ToolError(
            ErrorCode.NOT_FOUND,
            f"old_text was not found in {rel}.{hint} Read the file again and copy the text "
            "exactly.",
            retryable=True,
        )
    if len(offsets) > 1 and not params.replace_all:
        lines = ", ".join(str(text.count("\n", 0, at) + 1) for at in offsets[:20])
        raise ToolError(
            ErrorCode.INVALID_INPUT,
            f"old_text occurs {len(offsets)} times in {rel} (at lines {lines}); include more "
            "surrounding text to pick one, or set replace_all to true",
            retryable=True,
        )
    count = len(offsets) if params.replace_all else 1
    return text.replace(old, new, count), offsets[:count], old, new


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


async def _run(params: EditFileInput, ctx: ToolContext) -> ToolOutput:
    _validate(params, ctx)
    rel = params.path
    snapshot = await ctx.workspace.read(rel)
    check_not_stale(ctx, rel, snapshot.version)
    text = decode_text(snapshot)
    new_full, offsets, old, new = _plan(params, text, rel)
    outcome = await ctx.workspace.write(
        rel, new_full, expected_version=snapshot.version, create=False
    )
    raise_if_rejected(outcome)
    await remember_version(ctx, rel, outcome)
    ranges = _new_line_ranges(new_full, offsets, old, new)
    noun = "occurrence" if len(offsets) == 1 else "occurrences"
    where = "line" if len(ranges) == 1 and "-" not in ranges[0] else "lines"
    message = (
        f"Edited {rel}: replaced {len(offsets)} {noun}; new text at {where} {', '.join(ranges)}."
    )
    lines_changed = max(old.count("\n"), new.count("\n")) + 1
    meta = {"path": rel, "replacements": len(offsets), "linesChanged": lines_changed * len(offsets)}
    return ToolOutput(message + landed_note(rel, new_full, outcome), meta)


def _new_line_ranges(new_full: str, offsets: list[int], old: str, new: str) -> list[str]:
    shift = len(new) - len(old)
    ranges = []
    for index, at in enumerate(offsets):
        start = new_full.count("\n", 0, at + index * shift) + 1
        end = start + new.rstrip("\n").count("\n")
        ranges.append(str(start) if end == start else f"{start}-{end}")
    if len(ranges) > 20:
        ranges = [*ranges[:20], f"and {len(ranges) - 20} more"]
    return ranges


async def _detail(params: EditFileInput, ctx: ToolContext) -> str:
    try:
        rel = ctx.workspace.relative(params.path)
        text = decode_text(await ctx.workspace.read(rel))
        new_full = _plan(params, text, rel)[0]
    except ToolError as exc:
        return f"(no preview: {exc})"
    return unified_diff(rel, text, new_full)


EDIT_FILE: ToolDefinition[EditFileInput] = ToolDefinition(
    name="edit_file",
    description=(
        "Edit a file by replacing exact text. `old_text` must match the current file exactly "
        "(indentation and line breaks included; leave out read_file's line-number prefixes) "
        "and occur once, unless `replace_all` is true. Read the file first; an edit to a file "
        "that changed since you read it is refused. The person may review the change; if they "
        "reject it, nothing is written. To create a file or rewrite it whole, use write_file."
    ),
    input_model=EditFileInput,
    risk=Risk.WRITE,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=lambda params: f"edit_file {params.path}" + (" (all)" if params.replace_all else ""),
    validate=_validate,
    detail=_detail,
)
