"""process_output: what a background process wrote since it was last read, and its state."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import Risk, ToolOutput
from agentls.tools.process_text import MAX_WAIT_SECONDS, process_id, process_output_text
from agentls.workspace.interface import ToolContext, ToolDefinition


class ProcessOutputInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="the process's id, e.g. `p1`")
    wait_seconds: float = Field(
        default=0,
        ge=0,
        le=MAX_WAIT_SECONDS,
        description=(
            "With nothing new yet, wait up to this long for output or the process's end "
            f"(at most {MAX_WAIT_SECONDS:.0f})."
        ),
    )


def _validate(params: ProcessOutputInput, ctx: ToolContext) -> None:
    params.id = process_id(params.id)


async def _run(params: ProcessOutputInput, ctx: ToolContext) -> ToolOutput:
    read = await ctx.workspace.processes.read(params.id, params.wait_seconds)
    return process_output_text(read)


PROCESS_OUTPUT: ToolDefinition[ProcessOutputInput] = ToolDefinition(
    name="process_output",
    description=(
        "Read a background process started with run_command (background: true): what it "
        "wrote (stdout and stderr) since the last read, then whether it still runs or its "
        "exit code. Output is bounded like any tool's; what overflowed between two reads "
        "is counted. Only this session's processes."
    ),
    input_model=ProcessOutputInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="none",
    validate=_validate,
    subject=lambda params: params.id,
    summary=lambda params: f"process_output: {params.id}",
)
