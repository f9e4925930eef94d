"""Folding a recorded session back into state, and rendering its transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    message_to_dict,
    user_text,
)
from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.usage import Usage
from agentls.session import events as ev
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.reducer import Reducer, reduce
from agentls.session.transcript import render_transcript

READ = ToolUseBlock("t1", "read_file", {"path": "src/foo.py"})
RM = ToolUseBlock("t2", "run_command", {"command": "rm -rf build"})
EDIT = ToolUseBlock("t3", "edit_file", {"path": "a.py", "old_text": "x", "new_text": "y"})
FIRST_REPLY = Message(
    "assistant",
    (
        ThinkingBlock("The test fails on import.\nMore detail.", "sig"),
        TextBlock("Looking."),
        READ,
        RM,
    ),
)
RESULTS = Message(
    "user",
    (ToolResultBlock("t1", "line\n" * 30), ToolResultBlock("t2", "denied by rule", is_error=True)),
)
FINAL = Message("assistant", (TextBlock("Fixed the import."),))
SECOND_REPLY = Message("assistant", (TextBlock("Editing."), EDIT))


def write_session(path: Path) -> list[dict[str, Any]]:
    """Two runs: one complete with an allowed and a denied call, one cut off mid-call."""
    with SessionLog(path) as log:
        log.append(ev.SESSION_STARTED, sessionId="s1", workspace="/ws", model="m", createdAt="T")
        log.append(ev.RUN_STARTED, run="r1", prompt="fix the failing test\nin foo.py")
        log.append(ev.USER_MESSAGE, run="r1", message=message_to_dict(user_text("fix it")))
        log.append(ev.MODEL_REQUEST, run="r1", turn=1, model="m", messages=1, tools=[])
        log.append(ev.MODEL_OUTPUT, run="r1", turn=1, message=message_to_dict(FIRST_REPLY))
        usage = Usage(1000, 400).to_dict()
        log.append(ev.USAGE, run="r1", turn=1, usage=usage, costUsd=0.01, totalCostUsd=0.01)
        log.append(
            ev.TOOL_INTENT, run="r1", turn=1, callId="t1", name="read_file", input=READ.input
        )
        log.append(
            ev.DECISION,
            run="r1",
            turn=1,
            callId="t1",
            verdict="allow",
            source="default for read",
            answer=None,
        )
        log.append(
            ev.OBSERVATION,
            run="r1",
            turn=1,
            callId="t1",
            name="read_file",
            ok=True,
            content="line\n" * 30,
            error=None,
            retryable=False,
            meta={},
        )
        log.append(
            ev.TOOL_INTENT, run="r1", turn=1, callId="t2", name="run_command", input=RM.input
        )
        log.append(
            ev.DECISION,
            run="r1",
            turn=1,
            callId="t2",
            verdict="deny",
            source="rule deny:run_command(rm *)",
            answer=None,
        )
        log.append(
            ev.OBSERVATION,
            run="r1",
            turn=1,
            callId="t2",
            name="run_command",
            ok=False,
            content="denied by rule",
            error="permission_denied",
            retryable=False,
            meta={},
        )
        log.append(ev.TOOL_RESULTS, run="r1", turn=1, message=message_to_dict(RESULTS))
        log.append(ev.MODEL_OUTPUT, run="r1", turn=2, message=message_to_dict(FINAL))
        usage = Usage(234, 167).to_dict()
        log.append(ev.USAGE, run="r1", turn=2, usage=usage, costUsd=0.0023, totalCostUsd=0.0123)
        result = RunResult(
            TerminalReason.COMPLETED, "Fixed the import.", Usage(1234, 567), 0.0123, 2
        )
        log.append(ev.RUN_FINISHED, run="r1", turn=2, result=result.to_dict())
        log.append(ev.MODE_CHANGED, mode="plan")
        log.append(ev.RUN_STARTED, run="r2", prompt="now rename it")
        log.append(ev.USER_MESSAGE, run="r2", message=message_to_dict(user_text("now rename it")))
        log.append(ev.MODEL_OUTPUT, run="r2", turn=1, message=message_to_dict(SECOND_REPLY))
        log.append(ev.USAGE, run="r2", turn=1, usage=Usage(10, 5).to_dict(), costUsd=None)
    return read_events(path)


@pytest.fixture
def events(tmp_path: Path) -> list[dict[str, Any]]:
    return write_session(tmp_path / "s.jsonl")


def test_reducer_rebuilds_messages_exactly(events: list[dict[str, Any]]) -> None:
    state = reduce(events)
    assert state.messages == [
        user_text("fix it"),
        FIRST_REPLY,
        RESULTS,
        FINAL,
        user_text("now rename it"),
        SECOND_REPLY,
    ]
    assert (state.session_id, state.workspace, state.model) == ("s1", "/ws", "m")
    assert state.mode == "plan"
    assert state.last_seq == len(events)


def test_reducer_totals_usage_and_marks_unknown_cost(events: list[dict[str, Any]]) -> None:
    state = reduce(events)
    assert state.usage == Usage(1244, 572)
    assert state.cost_usd is None  # run 2's price was unknown
    assert reduce(events[:16]).cost_usd == pytest.approx(0.0123)


def test_runs_record_results_and_the_open_run(events: list[dict[str, Any]]) -> None:
    state = reduce(events)
    done, crashed = state.runs
    assert done.run_id == "r1" and done.prompt.startswith("fix the failing test")
    assert done.result is not None and done.result["terminalReason"] == "completed"
    assert done.turns == 2
    assert crashed.result is None and crashed.outcome == "unfinished"
    assert state.open_run is crashed


def test_dangling_tool_uses_are_those_without_results(events: list[dict[str, Any]]) -> None:
    assert reduce(events).dangling_tool_uses() == [EDIT]
    after_first_reply = [e for e in events if e["seq"] <= 5]
    assert reduce(after_first_reply).dangling_tool_uses() == [READ, RM]
    assert reduce(events[:16]).dangling_tool_uses() == []


def test_run_closed_ends_an_open_run(events: list[dict[str, Any]]) -> None:
    closed = {
        "v": 1,
        "seq": 99,
        "ts": 0.0,
        "kind": ev.RUN_CLOSED,
        "run": "r2",
        "turn": None,
        "reason": "interrupted",
        "detail": "agentls stopped mid-run",
    }
    state = reduce([*events, closed])
    assert state.open_run is None
    assert state.runs[1].outcome == "interrupted"
    assert "**Run did not finish** (interrupted: agentls stopped mid-run)" in render_transcript(
        [*events, closed]
    )


def test_incremental_reducer_matches_reduce(events: list[dict[str, Any]]) -> None:
    live = Reducer()
    for event in events:
        live.apply(event)
    assert live.state == reduce(events)


def test_transcript_shows_prompt_calls_decisions_and_results(
    events: list[dict[str, Any]],
) -> None:
    text = render_transcript(events)
    assert text.startswith("# Session s1\n")
    assert "## Run 1 — fix the failing test\n" in text
    assert "> fix the failing test\n> in foo.py" in text
    assert "> fix it" in text  # the user message differed from the prompt
    assert "> (thinking) The test fails on import.…" in text
    assert "More detail" not in text
    assert "→ read_file path=src/foo.py — allowed (default for read)" in text
    assert "… 10 more lines" in text
    assert '→ run_command command="rm -rf build" — denied (rule deny:run_command(rm *))' in text
    assert "✗ permission_denied (not retryable)" in text
    assert "**Result:** completed — 2 turns, 1,234 in / 567 out tokens, $0.0123" in text
    assert "_Mode: plan_" in text
    assert "## Run 2 — now rename it" in text
    assert "→ edit_file path=a.py old_text=x new_text=y" in text
    assert "(no result: the run stopped first)" in text
    assert text.rstrip().endswith(
        "**Run did not finish** (interrupted) — 1 turn so far, 10 in / 5 out tokens, cost unknown"
    )


def test_transcript_of_a_scripted_run_names_no_price_and_each_answer_once() -> None:
    events: list[dict[str, Any]] = [
        {"kind": "session_started", "sessionId": "s", "workspace": "/w", "model": "scripted:demo",
         "createdAt": "T"},
        {"kind": "run_started", "run": "r", "prompt": "go"},
        {"kind": "tool_intent", "callId": "c", "name": "run_command", "input": {"command": "ls"}},
        {"kind": "decision", "callId": "c", "verdict": "allow",
         "source": "asked: answered allow_once", "answer": "allow_once"},
        {"kind": "observation", "callId": "c", "name": "run_command", "ok": True,
         "content": "a.py\n[exit code 0]"},
        {"kind": "run_finished", "result": {"terminalReason": "completed", "turns": 1,
                                            "usage": {"inputTokens": 10, "outputTokens": 5,
                                                      "costUsd": 0.001}}},
    ]  # fmt: skip
    text = render_transcript(events)
    assert "**Result:** completed — 1 turn, 10 in / 5 out tokens\n" in text + "\n"
    assert "$" not in text
    assert "answered allow_once" in text and "answer allow_once" not in text
