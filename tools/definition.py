"""definition and references: where a symbol named on a line is defined, and used."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import Risk, ToolOutput
from agentls.tools.code_intel import intelligence, locate, render_locations
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.language import Locations


class SymbolAtInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="The file where the symbol appears.")
    line: int = Field(ge=1, description="The 1-based line it appears on.")
    symbol: str = Field(description="The identifier as written on that line.")


def _validate(params: SymbolAtInput, ctx: ToolContext) -> None:
    params.path = ctx.workspace.relative(params.path)


async def _definition(params: SymbolAtInput, ctx: ToolContext) -> ToolOutput:
    rel, column = await locate(ctx, params.path, params.line, params.symbol)
    answer = await intelligence(ctx).definition(rel, params.line, column)
    return ToolOutput(render_locations(answer, "definitions"), _meta(answer))


async def _references(params: SymbolAtInput, ctx: ToolContext) -> ToolOutput:
    rel, column = await locate(ctx, params.path, params.line, params.symbol)
    answer = await intelligence(ctx).references(rel, params.line, column)
    return ToolOutput(render_locations(answer, "references"), _meta(answer))


def _meta(answer: Locations) -> dict[str, int]:
    return {"found": len(answer.found), "withheld": answer.withheld.count}


DEFINITION: ToolDefinition[SymbolAtInput] = ToolDefinition(
    name="definition",
    description=(
        "Where a symbol is defined, asked of the language server (follows imports, unlike "
        "search). Name the symbol and a line where it appears; answers path:line: text."
    ),
    input_model=SymbolAtInput,
    risk=Risk.READ,
    run=_definition,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=lambda params: f"definition {params.symbol} ({params.path}:{params.line})",
    validate=_validate,
)

REFERENCES: ToolDefinition[SymbolAtInput] = ToolDefinition(
    name="references",
    description=(
        "Every use of a symbol across the workspace, asked of the language server (exact, "
        "unlike a text search). Name the symbol and a line where it appears."
    ),
    input_model=SymbolAtInput,
    risk=Risk.READ,
    run=_references,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=lambda params: f"references {params.symbol} ({params.path}:{params.line})",
    validate=_validate,
)
