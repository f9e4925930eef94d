"""One test per terminal reason, with the scripted model and test tools."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.messages import ToolResultBlock
from agentls.contracts.outcomes import TerminalReason
from agentls.permissions.approvers import AutoApprover
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from tests.unit.helpers import Gates, call, conversation, events_of, make_tools


async def test_completed_when_the_model_asks_for_no_tool(tmp_path: Path) -> None:
    conv, provider, _ = conversation(
        tmp_path,
        [
            {"text": "Let me echo.", "toolCalls": [call("echo", text="hi")]},
            {"expect": {"lastToolResultContains": "echo: hi"}, "text": "All done."},
        ],
        tools=make_tools(Gates()),
    )
    result = await conv.ask("say hi")
    assert result.reason is TerminalReason.COMPLETED
    assert result.exit_code == 0
    assert result.text == "All done."
    assert result.turns == 2
    assert result.usage.input_tokens > 0
    assert result.cost_usd is not None and result.cost_usd > 0
    kinds = [e.kind for e in events_of(conv)]
    assert kinds[:3] == ["session_started", "run_started", "user_message"]
    assert kinds[-1] == "run_finished"
    for kind in ("model_request", "model_output", "usage", "tool_intent", "decision",
                 "observation", "tool_results"):  # fmt: skip
        assert kind in kinds
    assert len(provider.calls) == 2


async def test_max_turns_stops_a_model_that_never_finishes(tmp_path: Path) -> None:
    turns = [{"toolCalls": [call("echo", text=str(i))]} for i in range(5)]
    conv, provider, _ = conversation(
        tmp_path, turns, tools=make_tools(Gates()), settings={"maxTurns": 3}
    )
    result = await conv.ask("loop forever")
    assert result.reason is TerminalReason.MAX_TURNS
    assert result.exit_code == 3
    assert result.turns == 3
    assert result.budget is not None and result.budget.limit_name == "turns"
    assert len(provider.calls) == 3


async def test_cancel_aborts_a_running_tool_and_closes_its_call(tmp_path: Path) -> None:
    gates = Gates()
    conv, _, _ = conversation(
        tmp_path,
        [{"toolCalls": [call("wait_read", "c1", name="g"), call("echo", "c2", text="x")]}],
        tools=make_tools(gates),
    )
    entered, _ = gates.pair("g")
    task = asyncio.create_task(conv.ask("wait"))
    await entered.wait()
    assert conv.cancel()
    result = await task
    assert result.reason is TerminalReason.ABORTED
    assert result.exit_code == 130
    # Every tool_use has exactly one tool_result, also after the abort.
    last = conv.messages[-1]
    assert last.role == "user"
    ids = [b.tool_use_id for b in last.content if isinstance(b, ToolResultBlock)]
    assert sorted(ids) == ["c1", "c2"]
    state = reduce(events_of(conv))
    assert state.dangling_tool_uses() == []
    assert "leave:g" not in gates.log


async def test_cancelling_the_caller_task_also_aborts(tmp_path: Path) -> None:
    gates = Gates()
    conv, _, _ = conversation(
        tmp_path, [{"toolCalls": [call("wait_read", "c1", name="g")]}], tools=make_tools(gates)
    )
    entered, _ = gates.pair("g")
    task = asyncio.create_task(conv.ask("wait"))
    await entered.wait()
    task.cancel()
    result = await task
    assert result.reason is TerminalReason.ABORTED


async def test_wall_clock_timeout(tmp_path: Path) -> None:
    gates = Gates()
    conv, _, _ = conversation(
        tmp_path,
        [{"toolCalls": [call("wait_read", name="never")]}],
        tools=make_tools(gates),
        settings={"timeoutSeconds": 0.2},
    )
    result = await conv.ask("hang")
    assert result.reason is TerminalReason.TIMEOUT
    assert result.exit_code == 5
    assert result.budget is not None and result.budget.limit_name == "wall_seconds"
    assert result.budget.used >= 0.2


async def test_token_budget_stops_before_tools_run(tmp_path: Path) -> None:
    gates = Gates()
    conv, _, _ = conversation(
        tmp_path,
        [
            {
                "toolCalls": [call("echo", text="1")],
                "usage": {"input_tokens": 60, "output_tokens": 10},
            },
            {
                "toolCalls": [call("echo", text="2")],
                "usage": {"input_tokens": 80, "output_tokens": 10},
            },
        ],
        tools=make_tools(gates),
        settings={"maxTokens": 100},
    )
    result = await conv.ask("spend")
    assert result.reason is TerminalReason.BUDGET_EXCEEDED
    assert result.exit_code == 4
    assert result.budget is not None
    assert (result.budget.limit_name, result.budget.limit, result.budget.used) == (
        "tokens",
        100,
        160,
    )
    assert result.budget.over_by == 60
    assert gates.log == ["echo:1"]  # the second call never ran
    assert conv.messages[-1].role == "user"  # and still got its tool_result


async def test_cost_budget(tmp_path: Path) -> None:
    conv, _, _ = conversation(
        tmp_path,
        [
            {
                "toolCalls": [call("echo", text="1")],
                "usage": {"input_tokens": 0, "output_tokens": 10_000},
            }
        ],
        tools=make_tools(Gates()),
        settings={"maxCostUsd": 0.01},
    )
    result = await conv.ask("spend")
    assert result.reason is TerminalReason.BUDGET_EXCEEDED
    assert result.budget is not None and result.budget.limit_name == "cost_usd"
    assert result.budget.used == 0.15  # 10k output tokens at the scripted price of $15/M


class Refuser:
    person = True
    reason = ""

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer.DENY


async def test_three_denials_in_a_row_stop_the_run(tmp_path: Path) -> None:
    turns = [{"toolCalls": [call("shout", text=str(i))]} for i in range(5)]
    conv, provider, _ = conversation(tmp_path, turns, tools=make_tools(Gates()))
    result = await conv.ask("shout", approver=Refuser())
    assert result.reason is TerminalReason.PERMISSION_DENIED
    assert result.exit_code == 6
    assert len(provider.calls) == 3


async def test_a_stopping_deny_rule_ends_the_run_at_once(tmp_path: Path) -> None:
    conv, provider, _ = conversation(
        tmp_path,
        [{"toolCalls": [call("shout", text="rm")]}, {"text": "never reached"}],
        tools=make_tools(Gates()),
        settings={"permissions": {"deny": [{"rule": "shout", "stop": True}]}},
    )
    result = await conv.ask("shout", approver=AutoApprover())
    assert result.reason is TerminalReason.PERMISSION_DENIED
    assert "deny rule shout" in result.detail
    assert len(provider.calls) == 1


async def test_repeated_tool_crashes_are_fatal(tmp_path: Path) -> None:
    turns = [{"toolCalls": [call("explode", text=str(i))]} for i in range(4)]
    conv, provider, _ = conversation(tmp_path, turns, tools=make_tools(Gates()))
    result = await conv.ask("crash")
    assert result.reason is TerminalReason.FATAL_TOOL_ERROR
    assert result.exit_code == 7
    assert "explode crashed" in result.detail
    assert len(provider.calls) == 2


async def test_model_error_ends_the_run(tmp_path: Path) -> None:
    conv, _, _ = conversation(
        tmp_path,
        [{"error": {"message": "overloaded after 4 retries", "kind": "overloaded"}}],
        tools=make_tools(Gates()),
    )
    result = await conv.ask("hi")
    assert result.reason is TerminalReason.MODEL_ERROR
    assert result.exit_code == 8
    assert "overloaded" in result.detail


async def test_an_unexpected_model_call_fails_loudly(tmp_path: Path) -> None:
    conv, _, _ = conversation(
        tmp_path, [{"toolCalls": [call("echo", text="x")]}], tools=make_tools(Gates())
    )
    result = await conv.ask("hi")
    assert result.reason is TerminalReason.MODEL_ERROR
    assert "call 2 was not expected" in result.detail


async def test_a_run_cancelled_before_its_first_step_still_records_its_end(
    tmp_path: Path,
) -> None:
    conv, provider, _ = conversation(tmp_path, [{"text": "never asked"}])
    handle = await conv.start("go")
    assert handle.cancel()  # before the run's task has run at all
    result = await handle.result()
    assert (result.reason, result.turns) == (TerminalReason.ABORTED, 0)
    assert "before its first turn" in (result.detail or "")
    assert provider.calls == []  # nothing ran
    kinds = [e.kind for e in read_events(conv.log.path)]
    assert kinds[-2:] == ["run_started", "run_finished"]
    assert not handle.cancel()  # it has ended
    conv.close()
