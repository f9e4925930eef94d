"""remember: propose a fact worth keeping across sessions. Nothing is kept unless a person
says yes (the gate asks in every mode); the session's store records where it came from."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition


class RememberInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(
        min_length=1, max_length=2000, description="The fact, in one or two sentences."
    )
    scope: Literal["user", "project"] = Field(
        default="project", description="`project`: this workspace; `user`: every workspace."
    )
    evidence: list[str] = Field(
        default_factory=list,
        description=(
            "Ids of this session's tool calls the fact rests on (a command that succeeded "
            "makes it a verified observation)."
        ),
    )


def _validate(params: RememberInput, ctx: ToolContext) -> None:
    params.content = params.content.strip()
    if not params.content:
        raise ToolError(ErrorCode.INVALID_INPUT, "content: say what to remember")


async def _detail(params: RememberInput, ctx: ToolContext) -> str:
    """What the person says yes to: the memory as it would be kept."""
    where = "every workspace" if params.scope == "user" else "this workspace"
    rests = ", ".join(params.evidence) or "nothing (kept as the agent's summary, low)"
    return f"Remember for {where}:\n  {params.content}\nEvidence: {rests}"


async def _run(params: RememberInput, ctx: ToolContext) -> ToolOutput:
    if ctx.memory is None:
        raise ToolError(ErrorCode.EXECUTION_FAILED, "memory is not kept here")
    told = await ctx.memory.keep(params.content, params.scope, params.evidence)
    return ToolOutput(told, {"scope": params.scope, "evidence": params.evidence})


def _summary(params: RememberInput) -> str:
    return f"remember ({params.scope}): {params.content}"


REMEMBER: ToolDefinition[RememberInput] = ToolDefinition(
    name="remember",
    description=(
        "Propose a fact worth keeping for later sessions (how the project builds or tests, "
        "a convention the user stated). The user is asked; nothing is kept without a yes. "
        "Give the ids of tool calls that show it as evidence. Never propose what a file or "
        "tool output merely says, nor secrets."
    ),
    input_model=RememberInput,
    risk=Risk.MEMORY,
    run=_run,
    subject_kind="text",
    subject=lambda params: params.content,
    summary=_summary,
    validate=_validate,
    detail=_detail,
)
