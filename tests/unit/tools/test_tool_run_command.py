"""run_command through a LocalWorkspace, and the built-in tool table."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentls.contracts.tooling import ErrorCode, Risk, ToolError
from agentls.tools import BUILTIN_TOOLS, tools_by_name
from agentls.tools.run_command import RUN_COMMAND, RunCommandInput
from agentls.workspace.interface import CommandGrant, ToolContext


async def run(ctx: ToolContext, **fields: object) -> tuple[str, dict[str, object]]:
    params = RunCommandInput.model_validate(fields)
    assert RUN_COMMAND.validate is not None
    RUN_COMMAND.validate(params, ctx)
    ctx.grant = CommandGrant(params.command, params.command)  # as the runtime grants it
    output = await RUN_COMMAND.run(params, ctx)
    return output.text, output.meta


async def test_a_command_runs_only_with_the_runtime_grant_for_it(
    ctx: ToolContext, tmp_path: Path
) -> None:
    marker = ctx.workspace.root / "ran"
    params = RunCommandInput(command="touch ran")
    with pytest.raises(ToolError) as refused:
        await RUN_COMMAND.run(params, ctx)  # no grant at all
    assert refused.value.code is ErrorCode.PERMISSION_DENIED
    ctx.grant = CommandGrant("ls", "ls")  # a grant for another call
    with pytest.raises(ToolError):
        await RUN_COMMAND.run(params, ctx)
    assert not marker.exists()
    ctx.grant = CommandGrant("touch ran", "touch ran")
    await RUN_COMMAND.run(params, ctx)
    assert marker.exists()


async def test_what_runs_is_the_grant_line_not_the_text(ctx: ToolContext) -> None:
    params = RunCommandInput(command="echo judged")
    ctx.grant = CommandGrant("echo judged", "echo rendered")
    output = await RUN_COMMAND.run(params, ctx)
    assert output.text.startswith("rendered\n")


async def test_output_then_exit_code(ctx: ToolContext) -> None:
    text, meta = await run(ctx, command="echo hello; exit 0")
    assert text == "hello\n[exit code 0]"
    assert meta == {"exitCode": 0, "truncatedBytes": 0, "timedOut": False}


async def test_non_zero_exit_is_not_a_tool_error(ctx: ToolContext) -> None:
    text, meta = await run(ctx, command="printf 'no newline'; exit 4")
    assert text == "no newline\n[exit code 4]"
    assert meta["exitCode"] == 4
    text, _ = await run(ctx, command="true")
    assert text == "(no output)\n[exit code 0]"


async def test_long_output_is_cut_with_a_note(ctx: ToolContext) -> None:
    ctx.output_limit = 500
    text, meta = await run(ctx, command="seq 1 10000")
    assert text.startswith("1\n2\n")
    assert text.endswith("9999\n10000\n[exit code 0]")
    assert isinstance(meta["truncatedBytes"], int) and meta["truncatedBytes"] > 40_000
    assert f"[... {meta['truncatedBytes']:,} bytes of output cut ...]" in text


async def test_timeout_is_a_retryable_error_with_the_output(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await run(ctx, command="echo partial; sleep 1000", timeout_seconds=0.5)
    assert caught.value.code is ErrorCode.TIMEOUT and caught.value.retryable
    assert str(caught.value) == "partial\n[timed out after 0.5 s; process group killed]"


async def test_default_timeout_comes_from_the_context(ctx: ToolContext) -> None:
    ctx.command_timeout_seconds = 0.3
    with pytest.raises(ToolError) as caught:
        await asyncio.wait_for(run(ctx, command="sleep 1000"), 30)
    assert "timed out after 0.3 s" in str(caught.value)


def test_input_bounds_and_empty_command(ctx: ToolContext) -> None:
    with pytest.raises(ValueError):
        RunCommandInput(command="x", timeout_seconds=601)
    with pytest.raises(ValueError):
        RunCommandInput(command="x", timeout_seconds=0)
    assert RUN_COMMAND.validate is not None
    with pytest.raises(ToolError):
        RUN_COMMAND.validate(RunCommandInput(command="   "), ctx)


async def test_subject_summary_and_detail(root: Path, ctx: ToolContext) -> None:
    params = RunCommandInput(command="pytest -q tests/unit", timeout_seconds=30)
    assert RUN_COMMAND.subject(params) == "pytest -q tests/unit"
    assert RUN_COMMAND.summary(params) == "run_command: pytest -q tests/unit"
    assert RUN_COMMAND.detail is not None
    assert await RUN_COMMAND.detail(params, ctx) == (
        f"$ pytest -q tests/unit\n(in {root.resolve()}, timeout 30 s)"
    )


def test_builtin_tools_in_order_with_their_risks() -> None:
    assert [(t.name, t.risk, t.subject_kind) for t in BUILTIN_TOOLS] == [
        ("read_file", Risk.READ, "path"),
        ("list_files", Risk.READ, "path"),
        ("search", Risk.READ, "path"),
        ("edit_file", Risk.WRITE, "path"),
        ("write_file", Risk.WRITE, "path"),
        ("run_command", Risk.EXECUTE, "command"),
        ("process_output", Risk.READ, "none"),
        ("process_stop", Risk.READ, "none"),
        ("problems", Risk.READ, "path"),
        ("definition", Risk.READ, "path"),
        ("references", Risk.READ, "path"),
        ("symbols", Risk.READ, "path"),
        ("rename", Risk.WRITE, "path"),
        ("remember", Risk.MEMORY, "text"),
        ("update_plan", Risk.READ, "none"),
        ("propose_plan", Risk.PLAN, "none"),
    ]
    assert list(tools_by_name()) == [t.name for t in BUILTIN_TOOLS]
    for tool in BUILTIN_TOOLS:
        schema = tool.input_schema()
        assert schema["additionalProperties"] is False, tool.name
        for name, field in schema["properties"].items():
            assert field.get("description"), f"{tool.name}.{name} has no description"
        assert tool.validate is not None
        assert (tool.detail is not None) == (tool.risk is not Risk.READ)
