"""update_plan: the model's checklist for the task, shown to the person in every face.
Each call replaces the whole plan; it changes nothing in the workspace."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.plans import PLAN_TOOL, Plan, PlanStep, StepStatus
from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition

MAX_STEPS = 50


class PlanStepInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step: str = Field(min_length=1, max_length=500, description="What the step does, briefly.")
    status: Literal["pending", "in_progress", "completed"]


class UpdatePlanInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: list[PlanStepInput] = Field(
        min_length=1,
        max_length=MAX_STEPS,
        description="Every step, in order (the whole plan each time): at most one in_progress.",
    )
    explanation: str | None = Field(
        default=None, max_length=2000, description="Why the plan is what it is, or what changed."
    )


def _validate(params: UpdatePlanInput, ctx: ToolContext) -> None:
    for item in params.plan:
        item.step = " ".join(item.step.split())
        if not item.step:
            raise ToolError(ErrorCode.INVALID_INPUT, "plan: a step says nothing", retryable=True)
    working = sum(1 for item in params.plan if item.status == "in_progress")
    if working > 1:
        raise ToolError(
            ErrorCode.INVALID_INPUT,
            f"plan: {working} steps are in_progress; mark at most one",
            retryable=True,
        )


def _plan(params: UpdatePlanInput) -> Plan:
    steps = tuple(PlanStep(item.step, StepStatus(item.status)) for item in params.plan)
    return Plan(steps, (params.explanation or "").strip())


async def _run(params: UpdatePlanInput, ctx: ToolContext) -> ToolOutput:
    plan = _plan(params)
    told = f"Plan updated: {plan.done} of {len(plan.steps)} steps completed."
    return ToolOutput(told, {"steps": len(plan.steps), "completed": plan.done}, plan=plan)


def _summary(params: UpdatePlanInput) -> str:
    done = sum(1 for item in params.plan if item.status == "completed")
    return f"update_plan ({done}/{len(params.plan)} done)"


UPDATE_PLAN: ToolDefinition[UpdatePlanInput] = ToolDefinition(
    name=PLAN_TOOL,
    description=(
        "Keep a short checklist of the task's steps that the user sees as you work. Use it "
        "for work of several steps: set the plan early, then call again whenever a step "
        "starts or finishes (the whole list each time, at most one step in_progress). "
        "Skip it for a question or a one-step change."
    ),
    input_model=UpdatePlanInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="none",
    subject=lambda params: "",
    summary=_summary,
    validate=_validate,
)
