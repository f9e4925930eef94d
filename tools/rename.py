"""rename: a symbol renamed everywhere by the language server, one reviewed change of every file."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.tools.changes import check_not_stale, remember_version, unified_diff
from agentls.tools.code_intel import intelligence, locate
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.language import FileChange


class RenameInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="A file where the symbol appears.")
    line: int = Field(ge=1, description="The 1-based line it appears on.")
    symbol: str = Field(description="The identifier as written on that line.")
    new_name: str = Field(description="Its new name.")
    # The server's answer, asked once per call: the gate, the review and the run see one change.
    _answer: list[FileChange] | None = PrivateAttr(default=None)


def _validate(params: RenameInput, ctx: ToolContext) -> None:
    params.path = ctx.workspace.relative(params.path)
    if not params.new_name.strip() or any(c.isspace() for c in params.new_name):
        raise ToolError(ErrorCode.INVALID_INPUT, "new_name must be one identifier, without spaces")
    if params.new_name == params.symbol:
        raise ToolError(ErrorCode.INVALID_INPUT, "new_name is the same as symbol")


async def _changes(params: RenameInput, ctx: ToolContext) -> list[FileChange]:
    if params._answer is None:
        rel, column = await locate(ctx, params.path, params.line, params.symbol)
        params._answer = await intelligence(ctx).rename(rel, params.line, column, params.new_name)
    return params._answer


async def _touched(params: RenameInput, ctx: ToolContext) -> list[str]:
    """Every file the rename changes, for the permission rules (the gate asks about
    each, not only the path the call names)."""
    _validate(params, ctx)
    return [ctx.workspace.relative(c.path) for c in await _changes(params, ctx)]


async def _run(params: RenameInput, ctx: ToolContext) -> ToolOutput:
    _validate(params, ctx)
    changes = await _changes(params, ctx)
    if not changes:
        return ToolOutput("The language server found nothing to change.", {"files": 0})
    for change in changes:  # every file first: no rename over a stale read
        check_not_stale(ctx, change.path, change.version)
    summary = f"rename {params.symbol} -> {params.new_name} in {len(changes)} file(s)"
    outcome = await ctx.workspace.apply_changes(changes, summary)
    if not outcome.applied:
        reason = outcome.message or "no reason given"
        raise ToolError(
            ErrorCode.PERMISSION_DENIED, f"the rename was rejected: {reason}; nothing was changed"
        )
    done = list(outcome.files)
    for path, written in outcome.files.items():
        await remember_version(ctx, path, written)
    count = sum(
        c.new_text.count(params.new_name) - c.old_text.count(params.new_name) for c in changes
    )
    message = (
        f"Renamed {params.symbol} to {params.new_name} in {len(done)} file(s): {', '.join(done)}"
        f" ({count} occurrence(s))."
    )
    notes = [f"{path}: {w.message}" for path, w in outcome.files.items() if w.message]
    if outcome.message:
        notes.insert(0, outcome.message)
    if notes:
        message += "\n" + "\n".join(notes)
    landed = [path for path, w in outcome.files.items() if w.landed is not None]
    if landed:
        names = ", ".join(landed)
        message += f"\nWhat landed differs from the proposal in {names}: read them again."
    return ToolOutput(message, {"files": len(done), "paths": done, "occurrences": count})


async def _detail(params: RenameInput, ctx: ToolContext) -> str:
    try:
        changes = await _changes(params, ctx)
    except ToolError as exc:
        return f"(no preview: {exc})"
    return "".join(unified_diff(c.path, c.old_text, c.new_text) for c in changes)


RENAME: ToolDefinition[RenameInput] = ToolDefinition(
    name="rename",
    description=(
        "Rename a symbol everywhere it is used, through the language server (exact: follows "
        "imports and scopes, leaves unrelated text alone). Name the symbol and a line where "
        "it appears. One review covers every file it changes."
    ),
    input_model=RenameInput,
    risk=Risk.WRITE,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=lambda params: f"rename {params.symbol} -> {params.new_name} ({params.path})",
    validate=_validate,
    detail=_detail,
    more_subjects=_touched,
)
