"""process_stop: stop a background process (TERM, then KILL after a grace) and give its
last output."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import Risk, ToolOutput
from agentls.tools.process_text import process_id, process_output_text
from agentls.workspace.interface import ToolContext, ToolDefinition


class ProcessStopInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="the process's id, e.g. `p1`")


def _validate(params: ProcessStopInput, ctx: ToolContext) -> None:
    params.id = process_id(params.id)


async def _run(params: ProcessStopInput, ctx: ToolContext) -> ToolOutput:
    read = await ctx.workspace.processes.stop(params.id, "model")
    return process_output_text(read)


PROCESS_STOP: ToolDefinition[ProcessStopInput] = ToolDefinition(
    name="process_stop",
    description=(
        "Stop a background process started with run_command (background: true): its whole "
        "process group gets SIGTERM, then SIGKILL after a short grace. Returns what it "
        "wrote since the last read and how it ended. Only this session's processes."
    ),
    input_model=ProcessStopInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="none",
    validate=_validate,
    subject=lambda params: params.id,
    summary=lambda params: f"process_stop: {params.id}",
)
