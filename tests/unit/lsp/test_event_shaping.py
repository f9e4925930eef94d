"""A run's callbacks as `agentls/event` notifications: the wire the editors read.

Each expected object is written out key by key (what the VS Code client, the
Neovim and Emacs scripts read), and every notification must fit the published
schema (docs/protocol.schema.json).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, cast

import pytest
from jsonschema import Draft202012Validator
from lsprotocol import types

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason
from agentls.contracts.tooling import ErrorCode, Observation, Risk, ToolIntent
from agentls.contracts.usage import Usage
from agentls.lsp.run_events import LspRunObserver

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[3] / "docs" / "protocol.schema.json").read_text("utf-8")
)
EVENT = Draft202012Validator({"$ref": "#/$defs/AgentEvent", "$defs": SCHEMA["$defs"]})
RUN = {"sessionId": "s1", "runId": "r1"}


class FakeServer:
    """What the observer uses of the server: notifications and messages."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.told: list[tuple[str, types.MessageType]] = []
        self.client_capabilities = types.ClientCapabilities()
        self.protocol = self
        self.arrived = asyncio.Event()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.sent.append((method, params))
        self.arrived.set()

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.told.append((message, kind))


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


def observer_for(server: FakeServer, show_cost: bool = True) -> LspRunObserver:
    observer = LspRunObserver(cast(Any, server), "s1", "fix it")
    observer.run_id = "r1"
    observer.show_cost = show_cost
    return observer


def events(server: FakeServer) -> list[dict[str, Any]]:
    assert {method for method, _ in server.sent} <= {"agentls/event"}
    for _, params in server.sent:
        EVENT.validate(params)
    return [params for _, params in server.sent]


def request(call_id: str = "c1") -> ApprovalRequest:
    return ApprovalRequest(
        call_id=call_id,
        tool="run_command",
        risk=Risk.EXECUTE,
        summary="pytest -q",
        detail="pytest -q",
        suggested_rule="run_command(pytest *)",
    )


async def test_text_is_coalesced_and_flushed_before_the_next_event(server: FakeServer) -> None:
    observer = observer_for(server)
    observer.text_delta(1, "I will ")
    observer.text_delta(1, "look.")
    assert server.sent == []  # waiting for more text
    observer.tool_started(1, ToolIntent("c1", "read_file", {"path": "a.py"}), "read_file a.py")
    assert events(server) == [
        {**RUN, "turn": 1, "kind": "text", "text": "I will look."},
        {**RUN, "turn": 1, "kind": "tool_started", "callId": "c1", "name": "read_file",
         "summary": "read_file a.py"},
    ]  # fmt: skip


async def test_text_alone_is_sent_after_a_moment(server: FakeServer) -> None:
    observer = observer_for(server)
    observer.text_delta(2, "done")
    await asyncio.wait_for(server.arrived.wait(), 5)  # the flush timer's turn
    assert events(server) == [{**RUN, "turn": 2, "kind": "text", "text": "done"}]


def test_a_finished_command_says_its_first_line_exit_code_and_notes(server: FakeServer) -> None:
    observer = observer_for(server)
    observer.turn = 3  # as its tool_started left it
    content = "FAILED a.py\nline 2\nline 3\n[note: a.py has unsaved changes]\n[exit code 1]"
    observation = Observation(
        "c2", "run_command", content, ErrorCode.EXECUTION_FAILED, meta={"exitCode": 1}
    )
    observer.tool_finished(3, observation, "run_command pytest")
    assert events(server) == [
        {**RUN, "turn": 3, "kind": "tool_finished", "callId": "c2", "name": "run_command",
         "summary": "run_command pytest", "ok": False, "error": "execution_failed",
         "line": "FAILED a.py", "moreLines": 2, "exitCode": 1,
         "notes": ["a.py has unsaved changes"]},
    ]  # fmt: skip


def test_a_long_first_line_is_cut(server: FakeServer) -> None:
    observer = observer_for(server)
    observer.tool_finished(1, Observation("c3", "read_file", "x" * 300), "read_file big.txt")
    (event,) = events(server)
    assert event["line"] == "x" * 199 + "…"
    assert (event["ok"], event["error"], event["exitCode"], event["moreLines"]) == (
        True, None, None, 0
    )  # fmt: skip


def test_approvals_say_the_rule_only_when_one_was_added(server: FakeServer) -> None:
    observer = observer_for(server)
    observer.turn = 1
    observer.approval_asked(1, request())
    observer.approval_answered(1, request(), ApprovalAnswer.ALLOW_ALWAYS)
    observer.approval_answered(1, request("c2"), ApprovalAnswer.DENY)
    assert events(server) == [
        {**RUN, "turn": 1, "kind": "approval_asked", "callId": "c1", "tool": "run_command",
         "summary": "pytest -q", "detail": "pytest -q", "rule": "run_command(pytest *)"},
        {**RUN, "turn": 1, "kind": "approval_answered", "callId": "c1",
         "answer": "allow_always", "rule": "run_command(pytest *)"},
        {**RUN, "turn": 1, "kind": "approval_answered", "callId": "c2", "answer": "deny",
         "rule": None},
    ]  # fmt: skip


def test_edits_and_questions_are_sent_as_the_workspace_and_the_board_say_them(
    server: FakeServer,
) -> None:
    observer = observer_for(server)
    observer.turn = 2
    question = {
        "id": "c1", "question": "approval", "summary": "pytest -q", "detail": "pytest -q",
        "path": None, "answers": [{"answer": "allow_once", "title": "Allow once: pytest -q"}],
    }  # fmt: skip
    payloads: list[tuple[str, dict[str, Any]]] = [
        ("edit_proposed", {"path": "a.py", "summary": "edit a.py (+1 −1 lines)", "review": True}),
        ("edit_applied", {"path": "a.py", "summary": "edit a.py (+1 −1 lines)", "changed": False}),
        ("edit_rejected", {"path": "b.py", "reason": "rejected by the user"}),
        ("question", question),
        ("question_closed", {"id": "c1", "answer": "timeout"}),
    ]
    for kind, payload in payloads:
        observer.edit(kind, payload)
    assert events(server) == [
        {**RUN, "turn": 2, "kind": kind, **payload} for kind, payload in payloads
    ]


def test_a_kind_the_protocol_does_not_have_is_not_sent(server: FakeServer) -> None:
    observer_for(server).edit("edit_exploded", {"path": "a.py"})
    assert server.sent == []


def test_usage_shows_no_price_for_a_scripted_model(server: FakeServer) -> None:
    observer_for(server).usage(1, Usage(1000, 200, 10, 5), 0.0123456789)
    observer_for(server, show_cost=False).usage(1, Usage(1000, 200), 0.5)
    totals = {"inputTokens": 1000, "outputTokens": 200}
    assert events(server) == [
        {**RUN, "turn": 0, "kind": "usage", "usage": {**totals, "cacheReadTokens": 10,
         "cacheWriteTokens": 5, "costUsd": 0.012346}},
        {**RUN, "turn": 0, "kind": "usage", "usage": {**totals, "cacheReadTokens": 0,
         "cacheWriteTokens": 0, "costUsd": None}},
    ]  # fmt: skip


def test_run_finished_carries_the_result_and_a_budget_only_when_one_stopped_it(
    server: FakeServer,
) -> None:
    done = RunResult(TerminalReason.COMPLETED, "Fixed.\nMore.", Usage(10, 2), 0.001, 2)
    over = BudgetOverrun("tokens", 100, 130)
    stopped = RunResult(TerminalReason.BUDGET_EXCEEDED, "", Usage(90, 40), None, 3,
                        "the token budget is spent", over)  # fmt: skip
    observer = observer_for(server)
    observer.turn = 2
    observer.run_finished(done)
    observer.run_finished(stopped)
    usage = {"cacheReadTokens": 0, "cacheWriteTokens": 0}
    assert events(server) == [
        {**RUN, "terminalReason": "completed", "text": "Fixed.\nMore.", "turns": 2,
         "usage": {"inputTokens": 10, "outputTokens": 2, **usage, "costUsd": 0.001},
         "detail": "", "kind": "run_finished", "turn": 2},
        {**RUN, "terminalReason": "budget_exceeded", "text": "", "turns": 3,
         "usage": {"inputTokens": 90, "outputTokens": 40, **usage, "costUsd": None},
         "detail": "the token budget is spent",
         "budget": {"limit": "tokens", "max": 100, "used": 130, "overBy": 30},
         "kind": "run_finished", "turn": 2},
    ]  # fmt: skip
    # The same object as RunResult.to_dict, which the CLI prints, plus the run's ids.
    for event, result in zip(events(server), (done, stopped), strict=True):
        assert {k: v for k, v in event.items() if k not in ("kind", "turn", *RUN)} == (
            result.to_dict()
        )
    assert [message for message, _ in server.told] == [
        "agentls answered: Fixed.",
        "agentls: budget_exceeded: the token budget is spent",
    ]
