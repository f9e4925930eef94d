"""problems: what the language servers report for a file, or for the files they have open."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import Risk, ToolOutput
from agentls.tools.code_intel import intelligence, withheld_note
from agentls.workspace.interface import ToolContext, ToolDefinition

MAX_SHOWN = 200


class ProblemsInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str | None = Field(
        default=None,
        description="A file to check; leave out for every file the language servers have open.",
    )


def _validate(params: ProblemsInput, ctx: ToolContext) -> None:
    if params.path is not None:
        params.path = ctx.workspace.relative(params.path)


async def _run(params: ProblemsInput, ctx: ToolContext) -> ToolOutput:
    paths = [params.path] if params.path is not None else None
    report = await intelligence(ctx).problems(paths)
    lines = [f"[{p.severity}] {p.render()}" for p in report.problems[:MAX_SHOWN]]
    if len(report.problems) > MAX_SHOWN:
        lines.append(f"... and {len(report.problems) - MAX_SHOWN} more")
    lines += [f"{path}: not checked: {why}" for path, why in sorted(report.unchecked.items())]
    if report.unsettled:
        lines.append(f"(still being checked, may change: {', '.join(report.unsettled)})")
    withheld = withheld_note(report.withheld, "problems")
    where = params.path or "the open files"
    if not report.problems and not report.unchecked:
        head = withheld or f"No problems in {where}."
    else:
        head = f"{len(report.problems)} problem(s) in {where}:"
        lines += [withheld] if withheld else []
    meta = {
        "problems": len(report.problems),
        "unchecked": len(report.unchecked),
        "withheld": report.withheld.count,
    }
    return ToolOutput("\n".join([head, *lines]), meta)


PROBLEMS: ToolDefinition[ProblemsInput] = ToolDefinition(
    name="problems",
    description=(
        "The errors and warnings language servers (type checkers, linters) report for a file, "
        "as the editor would show them, unsaved changes included. Without a path: every file "
        "they have open. Problems your edits introduce are also reported after each turn."
    ),
    input_model=ProblemsInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path or ".",
    summary=lambda params: f"problems {params.path or '(open files)'}",
    validate=_validate,
)
