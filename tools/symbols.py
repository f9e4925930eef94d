"""symbols: a file's outline, or the workspace's symbols matching a query."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.tools.code_intel import MAX_LISTED, intelligence, withheld_note
from agentls.workspace.interface import ToolContext, ToolDefinition


class SymbolsInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str | None = Field(default=None, description="Part of a symbol's name to look for.")
    path: str | None = Field(
        default=None, description="A file whose symbols to list (its outline)."
    )


def _validate(params: SymbolsInput, ctx: ToolContext) -> None:
    if params.path is not None:
        params.path = ctx.workspace.relative(params.path)
    elif not (params.query or "").strip():
        raise ToolError(ErrorCode.INVALID_INPUT, "give a query, a path, or both")


async def _run(params: SymbolsInput, ctx: ToolContext) -> ToolOutput:
    answer = await intelligence(ctx).symbols(params.query, params.path)
    found, withheld = answer.found, withheld_note(answer.withheld, "symbols")
    meta = {"found": len(found), "withheld": answer.withheld.count}
    if not found:
        return ToolOutput(withheld or "No symbols found.", meta)
    lines = []
    for symbol in found[:MAX_LISTED]:
        inside = f" (in {symbol.container})" if symbol.container else ""
        lines.append(f"{symbol.path}:{symbol.line}: {symbol.kind} {symbol.name}{inside}")
    if len(found) > MAX_LISTED:
        lines.append(f"... and {len(found) - MAX_LISTED} more")
    lines += [withheld] if withheld else []
    return ToolOutput(f"{len(found)} symbol(s):\n" + "\n".join(lines), meta)


SYMBOLS: ToolDefinition[SymbolsInput] = ToolDefinition(
    name="symbols",
    description=(
        "Symbols (classes, functions, variables) from the language server: with path, that "
        "file's outline; with only query, the workspace's symbols whose name matches."
    ),
    input_model=SymbolsInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path or ".",
    summary=lambda params: "symbols " + (params.path or repr(params.query or "")),
    validate=_validate,
)
