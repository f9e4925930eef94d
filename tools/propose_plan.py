"""propose_plan: in plan mode, put the plan to the person. They switch to `default` or
`accept-edits` (the run goes on in that mode) or keep planning, with a note. The tool
runtime asks and changes the mode; this call only tells the model what was decided."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.plans import PlanAnswer
from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition

MAX_PLAN_CHARS = 20_000


class ProposePlanInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: str = Field(
        min_length=1,
        max_length=MAX_PLAN_CHARS,
        description="The plan in markdown: what will change, where, and how it will be checked.",
    )


def _validate(params: ProposePlanInput, ctx: ToolContext) -> None:
    params.plan = params.plan.strip()
    if not params.plan:
        raise ToolError(ErrorCode.INVALID_INPUT, "plan: say what the plan is", retryable=True)


async def _detail(params: ProposePlanInput, ctx: ToolContext) -> str:
    return params.plan


def told(answer: PlanAnswer) -> str:
    """What the model hears of the person's answer."""
    if answer.switches:
        return (
            f"The user approved the plan and switched to {answer.choice.value} mode: the "
            "write and command tools are available now. Carry out the plan."
        )
    if not answer.person:
        return (
            "No one is here to approve the plan: it stands as this run's answer, and the "
            "session stays in plan mode."
        )
    note = f" Their note: {answer.note}" if answer.note else ""
    return (
        f"The user wants to keep planning.{note} Stay in plan mode: look further and "
        "propose a revised plan with propose_plan."
    )


async def _run(params: ProposePlanInput, ctx: ToolContext) -> ToolOutput:
    answer = ctx.plan_answer
    if answer is None:  # only the runtime asks the person; it always sets the answer
        raise ToolError(ErrorCode.EXECUTION_FAILED, "the plan was not put to the user")
    meta: dict[str, object] = {"choice": answer.choice.value, "person": answer.person}
    if answer.note:
        meta["note"] = answer.note
    return ToolOutput(told(answer), meta)


PROPOSE_PLAN: ToolDefinition[ProposePlanInput] = ToolDefinition(
    name="propose_plan",
    description=(
        "Plan mode only: when your investigation is done, put your plan (markdown) to the "
        "user. They may switch to default mode (edits reviewed) or accept-edits mode and "
        "you then carry it out in this same run, or ask you to keep planning."
    ),
    input_model=ProposePlanInput,
    risk=Risk.PLAN,
    run=_run,
    subject_kind="none",
    subject=lambda params: "",
    summary=lambda params: "propose_plan",
    validate=_validate,
    detail=_detail,
)
