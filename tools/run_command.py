"""run_command: run a shell command in the workspace root, output bounded, time limited."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition

MAX_TIMEOUT_SECONDS = 600.0


class RunCommandInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(
        description="Shell command line (bash), run in the workspace root, e.g. `pytest -q`."
    )
    timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT_SECONDS,
        description=(
            "Seconds before the command and everything it started are killed "
            f"(default set by the session, at most {MAX_TIMEOUT_SECONDS:.0f})."
        ),
    )


def _validate(params: RunCommandInput, ctx: ToolContext) -> None:
    if not params.command.strip():
        raise ToolError(ErrorCode.INVALID_INPUT, "the command is empty")


def _timeout(params: RunCommandInput, ctx: ToolContext) -> float:
    return min(params.timeout_seconds or ctx.command_timeout_seconds, MAX_TIMEOUT_SECONDS)


async def _run(params: RunCommandInput, ctx: ToolContext) -> ToolOutput:
    _validate(params, ctx)
    grant = ctx.grant
    if grant is None or grant.judged != params.command:
        # Only the runtime grants a command, for the call its gate decided.
        raise ToolError(ErrorCode.PERMISSION_DENIED, "this command was not allowed to run")
    timeout = _timeout(params, ctx)
    result = await ctx.workspace.run_command(grant, timeout, ctx.output_limit)
    output = result.output or "(no output)\n"
    if not output.endswith("\n"):
        output += "\n"
    if result.timed_out:
        raise ToolError(
            ErrorCode.TIMEOUT,
            f"{output}[timed out after {timeout:g} s; process group killed]",
            retryable=True,
        )
    if result.exit_code is not None and result.exit_code < 0:
        status = f"[killed by signal {-result.exit_code}]"
    else:
        status = f"[exit code {result.exit_code}]"
    meta = {
        "exitCode": result.exit_code,
        "truncatedBytes": result.truncated_bytes,
        "timedOut": False,
    }
    return ToolOutput(output + status, meta)


def _summary(params: RunCommandInput) -> str:
    first = params.command.strip().splitlines()[0] if params.command.strip() else ""
    more = " …" if len(first) > 80 or "\n" in params.command.strip() else ""
    return f"run_command: {first[:80]}{more}"


async def _detail(params: RunCommandInput, ctx: ToolContext) -> str:
    return f"$ {params.command}\n(in {ctx.workspace.root}, timeout {_timeout(params, ctx):g} s)"


RUN_COMMAND: ToolDefinition[RunCommandInput] = ToolDefinition(
    name="run_command",
    description=(
        "Run a shell command (bash) in the workspace root and return its combined stdout and "
        "stderr, then `[exit code N]`. A non-zero exit code is reported, not an error. Stdin is "
        "closed, so interactive programs get no input; use non-interactive flags. Long output "
        "keeps its beginning and end, with a note of what was cut. On timeout the command and "
        "all processes it started are killed; background processes do not outlive the "
        "command. Prefer read_file, list_files and search for looking at files."
    ),
    input_model=RunCommandInput,
    risk=Risk.EXECUTE,
    run=_run,
    subject_kind="command",
    subject=lambda params: params.command,
    summary=_summary,
    validate=_validate,
    detail=_detail,
)
