"""The tool runtime's order of checks, concurrency, bounds and audit trail."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest, Verdict
from agentls.contracts.observer import NullObserver
from agentls.contracts.tooling import (
    ErrorCode,
    Observation,
    Risk,
    ToolError,
    ToolIntent,
    ToolOutput,
)
from agentls.permissions.approvers import AutoApprover, DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet
from agentls.runtime.pipeline import ToolRuntime
from agentls.runtime.registry import ToolRegistry
from agentls.session.events import EventT, to_wire
from agentls.tools import tools_by_name
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.local import LocalWorkspace
from tests.unit.helpers import EchoInput, Gates, make_tools


class MemoryAudit:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def append(self, event: EventT) -> EventT:
        self.events.append(to_wire(event))  # as the log writes it
        return event

    stage = append  # in memory, staging is appending

    def turn_boundary(self) -> None:
        pass

    def kinds(self, call_id: str) -> list[str]:
        return [e["kind"] for e in self.events if e.get("callId") == call_id]


class Recorder:
    person = True
    reason = ""

    def __init__(self, answer: ApprovalAnswer) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.requests.append(request)
        return self.answer


def runtime(
    tmp_path: Path,
    tools: list[ToolDefinition[Any]],
    *,
    mode: Mode = Mode.DEFAULT,
    rules: dict[str, Any] | None = None,
    approver: Any = None,
    output_limit: int = 30_000,
    call_timeout: float = 660.0,
) -> tuple[ToolRuntime, MemoryAudit]:
    audit = MemoryAudit()
    policy = PermissionPolicy(RuleSet.from_settings(rules or {}), mode)
    ctx = ToolContext(LocalWorkspace(tmp_path), output_limit=output_limit)
    rt = ToolRuntime(
        registry=ToolRegistry(tools),
        policy=policy,
        approver=approver or AutoApprover(),
        context=ctx,
        audit=audit,
        observer=NullObserver(),
        call_timeout_seconds=call_timeout,
    )
    rt.begin_run("run-test")
    return rt, audit


async def test_unknown_tool_is_not_found(tmp_path: Path) -> None:
    rt, audit = runtime(tmp_path, make_tools(Gates()))
    obs = await rt.execute(ToolIntent("c1", "nope", {}), 1)
    assert obs.error is ErrorCode.NOT_FOUND
    assert "no tool named 'nope'" in obs.content
    assert audit.kinds("c1") == ["tool_intent", "observation"]


async def test_invalid_input_names_the_field_and_goes_back_to_the_model(tmp_path: Path) -> None:
    rt, audit = runtime(tmp_path, make_tools(Gates()))
    obs = await rt.execute(ToolIntent("c1", "echo", {"txt": "x"}), 1)
    assert obs.error is ErrorCode.INVALID_INPUT and obs.retryable
    assert "text: Field required" in obs.content
    assert "txt: Extra inputs are not permitted" in obs.content
    assert "decision" not in audit.kinds("c1")  # validation comes before permission


async def test_tool_validation_comes_before_permission(tmp_path: Path) -> None:
    def refuse(args: Any, ctx: ToolContext) -> None:
        raise ToolError(ErrorCode.PERMISSION_DENIED, "outside the workspace")

    async def run(args: Any, ctx: ToolContext) -> ToolOutput:
        raise AssertionError("must not run")

    tool = ToolDefinition("w", "w", EchoInput, Risk.WRITE, run, "path", lambda a: a.text,
                          lambda a: a.text, validate=refuse)  # fmt: skip
    approver = Recorder(ApprovalAnswer.ALLOW_ONCE)
    rt, _ = runtime(tmp_path, [tool], approver=approver)
    obs = await rt.execute(ToolIntent("c1", "w", {"text": "../x"}), 1)
    assert obs.error is ErrorCode.PERMISSION_DENIED
    assert approver.requests == []  # nobody was asked about an escape


async def test_plan_mode_hides_write_and_execute_tools(tmp_path: Path) -> None:
    rt, _ = runtime(tmp_path, make_tools(Gates()), mode=Mode.PLAN)
    names = [s.name for s in rt.registry.specs(Mode.PLAN)]
    assert "wait_write" not in names and "shout" not in names and "echo" in names
    obs = await rt.execute(ToolIntent("c1", "shout", {"text": "x"}), 1)
    assert obs.error is ErrorCode.PERMISSION_DENIED
    assert "not available in plan mode" in obs.content


async def test_ask_allow_always_adds_a_session_rule(tmp_path: Path) -> None:
    approver = Recorder(ApprovalAnswer.ALLOW_ALWAYS)
    rt, audit = runtime(tmp_path, make_tools(Gates()), approver=approver)
    first = await rt.execute(ToolIntent("c1", "shout", {"text": "git status"}), 1)
    second = await rt.execute(ToolIntent("c2", "shout", {"text": "git status"}), 1)
    assert first.ok and second.ok
    assert len(approver.requests) == 1
    assert approver.requests[0].suggested_rule == "shout(git status)"
    decisions = [e for e in audit.events if e["kind"] == "decision"]
    assert decisions[0]["answer"] == "allow_always"
    assert decisions[1]["source"] == "allow rule shout(git status)"


async def test_denied_call_tells_the_model_and_runs_nothing(tmp_path: Path) -> None:
    gates = Gates()
    rt, audit = runtime(tmp_path, make_tools(gates), approver=DenyAllApprover())
    obs = await rt.execute(ToolIntent("c1", "shout", {"text": "x"}), 1)
    assert obs.error is ErrorCode.PERMISSION_DENIED
    assert "stdin is not a terminal" in obs.content
    assert gates.log == []
    decision = next(e for e in audit.events if e["kind"] == "decision")
    assert decision["verdict"] == Verdict.DENY.value


async def test_deny_rule_beats_allow_rule_and_yes(tmp_path: Path) -> None:
    rules = {"allow": ["shout"], "deny": ["shout(rm *)"]}
    rt, _ = runtime(tmp_path, make_tools(Gates()), rules=rules)
    denied = await rt.execute(ToolIntent("c1", "shout", {"text": "rm -rf x"}), 1)
    allowed = await rt.execute(ToolIntent("c2", "shout", {"text": "ls"}), 1)
    assert denied.error is ErrorCode.PERMISSION_DENIED and "deny rule shout(rm *)" in denied.content
    assert allowed.ok


async def test_adjacent_reads_run_concurrently_and_the_rest_in_the_models_order(
    tmp_path: Path,
) -> None:
    gates = Gates()
    rt, _ = runtime(tmp_path, make_tools(gates))
    intents = [
        ToolIntent("w1", "wait_write", {"name": "w1"}),
        ToolIntent("r1", "wait_read", {"name": "r1"}),
        ToolIntent("r2", "wait_read", {"name": "r2"}),
        ToolIntent("w2", "wait_write", {"name": "w2"}),
        ToolIntent("r3", "wait_read", {"name": "r3"}),
    ]
    batch = asyncio.create_task(rt.execute_batch(intents, 1))
    w1, relw1 = gates.pair("w1")
    await w1.wait()
    assert gates.log == ["enter:w1"]  # the reads after a write wait for it
    relw1.set()
    r1, rel1 = gates.pair("r1")
    r2, rel2 = gates.pair("r2")
    await r1.wait()
    await r2.wait()  # adjacent reads are inside their tool at the same time
    assert "enter:w2" not in gates.log
    rel1.set()
    rel2.set()
    w2, relw2 = gates.pair("w2")
    await w2.wait()
    assert "enter:r3" not in gates.log  # the read after the second write waits too
    relw2.set()
    r3, rel3 = gates.pair("r3")
    await r3.wait()
    rel3.set()
    results: list[Observation] = await batch
    assert [o.call_id for o in results] == ["w1", "r1", "r2", "w2", "r3"]
    assert all(o.ok for o in results)
    assert gates.log.index("leave:w2") < gates.log.index("enter:r3")


async def test_a_read_after_a_write_in_one_response_sees_the_write(tmp_path: Path) -> None:
    by_name = tools_by_name()
    rt, _ = runtime(tmp_path, [by_name["read_file"], by_name["write_file"]], mode=Mode.ACCEPT_EDITS)
    (tmp_path / "notes.txt").write_text("old\n")
    intents = [
        ToolIntent("w", "write_file", {"path": "notes.txt", "content": "new\n"}),
        ToolIntent("r", "read_file", {"path": "notes.txt"}),
    ]
    written, read = await rt.execute_batch(intents, 1)
    assert written.ok and read.ok
    assert "new" in read.content and "old" not in read.content


async def test_output_is_bounded_with_a_note(tmp_path: Path) -> None:
    async def big(args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput("x" * 10_000)

    tool = ToolDefinition("big", "big", EchoInput, Risk.READ, big, "none", str, str)
    rt, _ = runtime(tmp_path, [tool], output_limit=1_000)
    obs = await rt.execute(ToolIntent("c1", "big", {"text": ""}), 1)
    assert obs.ok
    assert len(obs.content) < 1_200
    assert "9,000 characters not shown" in obs.content
    assert obs.meta["cutCharacters"] == 9_000


async def test_per_call_timeout(tmp_path: Path) -> None:
    gates = Gates()
    rt, _ = runtime(tmp_path, make_tools(gates), call_timeout=0.1)
    obs = await rt.execute(ToolIntent("c1", "wait_read", {"name": "never"}), 1)
    assert obs.error is ErrorCode.TIMEOUT and obs.retryable


async def test_calls_running_together_each_time_out_and_the_run_goes_on(tmp_path: Path) -> None:
    gates = Gates()
    rt, _ = runtime(tmp_path, make_tools(gates), call_timeout=0.1)
    both = [
        ToolIntent("c1", "wait_read", {"name": "a"}),
        ToolIntent("c2", "wait_read", {"name": "b"}),
    ]
    observed = await rt.execute_batch(both, 1)
    assert [o.error for o in observed] == [ErrorCode.TIMEOUT, ErrorCode.TIMEOUT]
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
    after = await rt.execute(ToolIntent("c3", "echo", {"text": "next"}), 2)
    assert after.ok and after.content == "echo: next"


async def test_a_tool_that_ignores_its_cancellation_still_times_out(tmp_path: Path) -> None:
    async def stubborn(args: EchoInput, ctx: ToolContext) -> ToolOutput:
        with contextlib.suppress(asyncio.CancelledError):  # carries on as if nothing happened
            await asyncio.Event().wait()
        return ToolOutput("finished anyway")

    tool = ToolDefinition(
        "stubborn", "Ignore cancellation.", EchoInput, Risk.READ, stubborn, "none",
        lambda a: a.text, lambda a: a.text,
    )  # fmt: skip
    rt, _ = runtime(tmp_path, [tool], call_timeout=0.1)
    observed = await rt.execute(ToolIntent("c1", "stubborn", {"text": "x"}), 1)
    assert observed.error is ErrorCode.TIMEOUT
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_cancelling_the_run_during_a_call_is_not_a_timeout(tmp_path: Path) -> None:
    gates = Gates()
    rt, audit = runtime(tmp_path, make_tools(gates))
    calling = asyncio.ensure_future(rt.execute(ToolIntent("c1", "wait_read", {"name": "g"}), 1))
    entered, _ = gates.pair("g")
    await entered.wait()
    calling.cancel()
    with pytest.raises(asyncio.CancelledError):
        await calling
    (recorded,) = [e for e in audit.events if e["kind"] == "observation"]
    assert recorded["error"] == "cancelled"


async def test_tool_error_keeps_code_and_retryable(tmp_path: Path) -> None:
    rt, _ = runtime(tmp_path, make_tools(Gates()))
    obs = await rt.execute(ToolIntent("c1", "fail", {"text": "x"}), 1)
    assert obs.error is ErrorCode.EXECUTION_FAILED
    assert obs.content == "Error (execution_failed): failed x"
