"""write_file: create a file, or replace a file's whole content."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import Risk, ToolError, ToolOutput
from agentls.tools.changes import (
    check_not_stale,
    decode_text,
    landed_note,
    raise_if_rejected,
    remember_version,
    unified_diff,
)
from agentls.workspace.interface import ToolContext, ToolDefinition

MAX_DETAIL_CHARS = 50_000


class WriteFileInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        description="File to write, relative to the workspace root; missing folders are created."
    )
    content: str = Field(description="The complete new content of the file.")


def _validate(params: WriteFileInput, ctx: ToolContext) -> None:
    params.path = ctx.workspace.relative(params.path)


async def _run(params: WriteFileInput, ctx: ToolContext) -> ToolOutput:
    _validate(params, ctx)
    rel = params.path
    current = await ctx.workspace.version(rel)
    if current is not None:
        check_not_stale(ctx, rel, current)
    outcome = await ctx.workspace.write(
        rel, params.content, expected_version=current, create=current is None
    )
    raise_if_rejected(outcome)
    await remember_version(ctx, rel, outcome)
    size = len(params.content.encode("utf-8"))
    lines = params.content.count("\n") + (0 if params.content.endswith("\n") else 1)
    lines = lines if params.content else 0
    verb = "Created" if current is None else "Overwrote"
    message = f"{verb} {rel} ({lines} lines, {size:,} bytes)."
    meta = {"path": rel, "created": current is None, "bytes": size}
    return ToolOutput(message + landed_note(rel, params.content, outcome), meta)


async def _detail(params: WriteFileInput, ctx: ToolContext) -> str:
    try:
        rel = ctx.workspace.relative(params.path)
        before = ""
        if await ctx.workspace.version(rel) is not None:
            before = decode_text(await ctx.workspace.read(rel))
    except ToolError as exc:
        return f"(no preview: {exc})"
    diff = unified_diff(rel, before, params.content)
    if len(diff) > MAX_DETAIL_CHARS:
        diff = diff[:MAX_DETAIL_CHARS] + "\n[... diff cut]"
    return diff or f"(no change to {rel})"


WRITE_FILE: ToolDefinition[WriteFileInput] = ToolDefinition(
    name="write_file",
    description=(
        "Write a file's complete content: creates the file (and missing folders) or replaces "
        "an existing file whole. Prefer edit_file for changing part of an existing file. "
        "Read an existing file before overwriting it; a file that changed since you read it "
        "is refused. The person may review the change; if they reject it, nothing is written."
    ),
    input_model=WriteFileInput,
    risk=Risk.WRITE,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=lambda params: f"write_file {params.path}",
    validate=_validate,
    detail=_detail,
)
