"""run_command: run a shell command in the workspace root, output bounded, time limited;
or start it in the background (``background``), where it runs until it is stopped."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.tools.process_text import FIRST_OUTPUT_SECONDS, process_output_text
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
            f"(default set by the session, at most {MAX_TIMEOUT_SECONDS:.0f}); not for a "
            "background command."
        ),
    )
    background: bool = Field(
        default=False,
        description=(
            "Start it in the background (a dev server, a watcher) and return at once with "
            "its id (p1, p2, ...) and first output; read it with process_output, stop it "
            "with process_stop. It runs until stopped or the session ends."
        ),
    )


def _validate(params: RunCommandInput, ctx: ToolContext) -> None:
    if not params.command.strip():
        raise ToolError(ErrorCode.INVALID_INPUT, "the command is empty")
    if params.background and params.timeout_seconds is not None:
        raise ToolError(
            ErrorCode.INVALID_INPUT,
            "a background command has no timeout: it runs until process_stop or the end of "
            "the session; drop timeout_seconds",
        )


def _timeout(params: RunCommandInput, ctx: ToolContext) -> float:
    return min(params.timeout_seconds or ctx.command_timeout_seconds, MAX_TIMEOUT_SECONDS)


async def _run(params: RunCommandInput, ctx: ToolContext) -> ToolOutput:
    _validate(params, ctx)
    grant = ctx.grant
    if grant is None or grant.judged != params.command:
        # Only the runtime grants a command, for the call its gate decided.
        raise ToolError(ErrorCode.PERMISSION_DENIED, "this command was not allowed to run")
    if params.background:
        started = await ctx.workspace.start_command(grant, FIRST_OUTPUT_SECONDS)
        return process_output_text(started, first=True)
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
    where = " (background)" if params.background else ""
    return f"run_command{where}: {first[:80]}{more}"


async def _detail(params: RunCommandInput, ctx: ToolContext) -> str:
    if params.background:
        how = "in the background, until stopped or the session ends"
    else:
        how = f"timeout {_timeout(params, ctx):g} s"
    return f"$ {params.command}\n(in {ctx.workspace.root}, {how})"


RUN_COMMAND: ToolDefinition[RunCommandInput] = ToolDefinition(
    name="run_command",
    description=(
        "Run a shell command (bash) in the workspace root and return its combined stdout and "
        "stderr, then `[exit code N]`. A non-zero exit code is reported, not an error. Stdin is "
        "closed, so interactive programs get no input; use non-interactive flags. Long output "
        "keeps its beginning and end, with a note of what was cut. On timeout the command and "
        "all processes it started are killed; processes it puts in the background with & do "
        "not outlive it. For a server or watcher that must keep running, pass background: "
        "true; the session's commands share one network (loopback only) and /tmp, so a "
        "later command reaches a server an earlier one started. Prefer read_file, "
        "list_files and search for looking at files."
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
