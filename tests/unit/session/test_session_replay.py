"""Folding a recorded session back into state, and rendering its transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.contracts.decisions import ApprovalAnswer, Verdict
from agentls.contracts.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.tooling import ErrorCode
from agentls.contracts.usage import Usage
from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.records import ResultUsage, RunResultRecord
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


def write_session(path: Path) -> list[SessionEvent]:
    """Two runs: one complete with an allowed and a denied call, one cut off mid-call."""
    with SessionLog(path) as log:
        log.append(ev.SessionStarted(session_id="s1", workspace="/ws", model="m", created_at="T"))
        log.append(ev.RunStarted(run="r1", prompt="fix the failing test\nin foo.py"))
        log.append(ev.UserMessage(run="r1", message=user_text("fix it")))
        log.append(ev.ModelRequest(run="r1", turn=1, model="m", messages=1, tools=[]))
        log.append(ev.ModelOutput(run="r1", turn=1, message=FIRST_REPLY))
        log.append(ev.UsageEvent(run="r1", turn=1, usage=Usage(1000, 400), cost_usd=0.01,
                                 total_cost_usd=0.01))  # fmt: skip
        log.append(ev.ToolIntent(run="r1", turn=1, call_id="t1", name="read_file",
                                 input=READ.input))  # fmt: skip
        log.append(ev.Decision(run="r1", turn=1, call_id="t1", verdict=Verdict.ALLOW,
                               source="default for read"))  # fmt: skip
        log.append(ev.ObservationEvent(run="r1", turn=1, call_id="t1", name="read_file", ok=True,
                                       content="line\n" * 30))  # fmt: skip
        log.append(ev.ToolIntent(run="r1", turn=1, call_id="t2", name="run_command",
                                 input=RM.input))  # fmt: skip
        log.append(ev.Decision(run="r1", turn=1, call_id="t2", verdict=Verdict.DENY,
                               source="rule deny:run_command(rm *)"))  # fmt: skip
        log.append(ev.ObservationEvent(run="r1", turn=1, call_id="t2", name="run_command",
                                       ok=False, content="denied by rule",
                                       error=ErrorCode.PERMISSION_DENIED))  # fmt: skip
        log.append(ev.ToolResults(run="r1", turn=1, message=RESULTS))
        log.append(ev.ModelOutput(run="r1", turn=2, message=FINAL))
        log.append(ev.UsageEvent(run="r1", turn=2, usage=Usage(234, 167), cost_usd=0.0023,
                                 total_cost_usd=0.0123))  # fmt: skip
        result = RunResult(
            TerminalReason.COMPLETED, "Fixed the import.", Usage(1234, 567), 0.0123, 2
        )
        log.append(ev.RunFinished(run="r1", turn=2, result=RunResultRecord.of(result)))
        log.append(ev.ModeChanged(mode="plan"))
        log.append(ev.RunStarted(run="r2", prompt="now rename it"))
        log.append(ev.UserMessage(run="r2", message=user_text("now rename it")))
        log.append(ev.ModelOutput(run="r2", turn=1, message=SECOND_REPLY))
        log.append(ev.UsageEvent(run="r2", turn=1, usage=Usage(10, 5), cost_usd=None))
    return read_events(path)


@pytest.fixture
def events(tmp_path: Path) -> list[SessionEvent]:
    return write_session(tmp_path / "s.jsonl")


def test_reducer_rebuilds_messages_exactly(events: list[SessionEvent]) -> None:
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


def test_reducer_totals_usage_and_marks_unknown_cost(events: list[SessionEvent]) -> None:
    state = reduce(events)
    assert state.usage == Usage(1244, 572)
    assert state.cost_usd is None  # run 2's price was unknown
    assert reduce(events[:16]).cost_usd == pytest.approx(0.0123)


def test_runs_record_results_and_the_open_run(events: list[SessionEvent]) -> None:
    state = reduce(events)
    done, crashed = state.runs
    assert done.run_id == "r1" and done.prompt.startswith("fix the failing test")
    assert done.result is not None and done.result["terminalReason"] == "completed"
    assert done.turns == 2
    assert crashed.result is None and crashed.outcome == "unfinished"
    assert state.open_run is crashed


def test_dangling_tool_uses_are_those_without_results(events: list[SessionEvent]) -> None:
    assert reduce(events).dangling_tool_uses() == [EDIT]
    after_first_reply = [e for e in events if e.seq <= 5]
    assert reduce(after_first_reply).dangling_tool_uses() == [READ, RM]
    assert reduce(events[:16]).dangling_tool_uses() == []


def test_run_closed_ends_an_open_run(events: list[SessionEvent]) -> None:
    closed = ev.RunClosed(seq=99, run="r2", reason="interrupted", detail="agentls stopped mid-run")
    state = reduce([*events, closed])
    assert state.open_run is None
    assert state.runs[1].outcome == "interrupted"
    assert "**Run did not finish** (interrupted: agentls stopped mid-run)" in render_transcript(
        [*events, closed]
    )


def test_incremental_reducer_matches_reduce(events: list[SessionEvent]) -> None:
    live = Reducer()
    for event in events:
        live.apply(event)
    assert live.state == reduce(events)


def test_transcript_shows_prompt_calls_decisions_and_results(
    events: list[SessionEvent],
) -> None:
    text = render_transcript(events)
    assert text.startswith("# Session s1\n")
    assert "## Ask 1 — fix the failing test\n" in text
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
    assert "## Ask 2 — now rename it" in text
    assert "→ edit_file path=a.py old_text=x new_text=y" in text
    assert "(no result: the run stopped first)" in text
    assert text.rstrip().endswith(
        "**Run did not finish** (interrupted) — 1 turn so far, 10 in / 5 out tokens, cost unknown"
    )


def test_transcript_of_a_scripted_run_names_no_price_and_each_answer_once() -> None:
    finished = RunResultRecord(
        terminal_reason="completed",
        turns=1,
        usage=ResultUsage(input_tokens=10, output_tokens=5, cost_usd=0.001),
    )
    events: list[SessionEvent] = [
        ev.SessionStarted(session_id="s", workspace="/w", model="scripted:demo", created_at="T"),
        ev.RunStarted(run="r", prompt="go"),
        ev.ToolIntent(call_id="c", name="run_command", input={"command": "ls"}),
        ev.Decision(call_id="c", verdict=Verdict.ALLOW, source="asked: answered allow_once",
                    answer=ApprovalAnswer.ALLOW_ONCE),
        ev.ObservationEvent(call_id="c", name="run_command", ok=True,
                            content="a.py\n[exit code 0]"),
        ev.RunFinished(result=finished),
    ]  # fmt: skip
    text = render_transcript(events)
    assert "**Result:** completed — 1 turn, 10 in / 5 out tokens\n" in text + "\n"
    assert "$" not in text
    assert "answered allow_once" in text and "answer allow_once" not in text
