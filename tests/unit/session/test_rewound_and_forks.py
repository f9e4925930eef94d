"""Asks taken back by a `rewound` event, and a fork's log made from another's history:
the state they fold into, the transcript that shows them, the store that writes them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agentls.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, user_text
from agentls.session import events as ev
from agentls.session.events import SESSION_EVENTS, SessionEvent, to_wire
from agentls.session.forking import ForkRefused, fork_events
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.records import ChangedFile
from agentls.session.reducer import Reducer, reduce
from agentls.session.store import SessionNotFound, SessionStore
from agentls.session.transcript import render_transcript


def ask(log: SessionLog, run: str, prompt: str, *, calls: int = 1) -> None:
    """One ask: its prompt, ``calls`` turns of one tool call each, a last answer."""
    log.append(ev.RunStarted(run=run, prompt=prompt))
    log.append(ev.UserMessage(run=run, message=user_text(prompt)))
    for turn in range(1, calls + 1):
        use = ToolUseBlock(f"{run}-{turn}", "read_file", {"path": "a.py"})
        log.append(ev.ModelOutput(run=run, turn=turn, message=Message("assistant", (use,))))
        result = Message("user", (ToolResultBlock(use.id, "A = 1"),))
        log.append(ev.ToolResults(run=run, turn=turn, message=result))
    answer = Message("assistant", (TextBlock(f"done {prompt}"),))
    log.append(ev.ModelOutput(run=run, turn=calls + 1, message=answer))


def summary(log: SessionLog, run: str, up_to: int) -> int:
    event = log.append(ev.ContextSummary(
        run=run, text=f"summary to {up_to}", from_message=0, up_to_message=up_to,
        reason="threshold", model="m",
    ))  # fmt: skip
    return event.seq


def three_asks(path: Path) -> list[SessionEvent]:
    """Asks one (4 messages), two (with a summary of ask one) and three (summarising into
    ask two), then a rewind to ask two, then ask four."""
    with SessionLog(path) as log:
        log.append(ev.SessionStarted(session_id="s1", workspace="/ws", model="m", created_at="T"))
        ask(log, "r1", "one")
        log.append(ev.CheckpointStarted(run="r1", turn=1, number=1, before="b1"))
        log.append(ev.Checkpoint(run="r1", turn=1, number=1, before="b1", after="a1",
                                 changed=[ChangedFile(path="a.py", status="M")]))  # fmt: skip
        ask(log, "r2", "two")
        seq = summary(log, "r2", 4)
        log.append(ev.ContextProjected(
            run="r2", turn=1, from_message=4, summary_seq=seq, elided_before=4, bulky_chars=1,
            elided=0, estimated_tokens=10, compact_at=100, window=200,
        ))  # fmt: skip
        ask(log, "r3", "three")
        summary(log, "r3", 9)
        log.append(ev.Undo(turn=1, turns=[1], restored=["a.py"], removed=[], conflicts=[],
                           done=True))  # fmt: skip
        log.append(ev.Rewound(ask=2, asks=[2, 3], runs=["r2", "r3"], conversation=True,
                              files=True, turns=[7], restored=["a.py"], kept=["b.py"]))  # fmt: skip
        ask(log, "r4", "four")
    return read_events(path)


def test_a_rewind_cuts_the_history_where_the_first_ask_taken_back_began(tmp_path: Path) -> None:
    events = three_asks(tmp_path / "s.jsonl")
    state = reduce(events)
    prompts = [m.text for m in state.messages if m.role == "user" and m.text]
    assert prompts == ["one", "four"]
    assert len(state.messages) == 8  # ask one's four, ask four's four
    assert [(r.number, r.run_id, r.rewound) for r in state.runs] == [
        (1, "r1", False), (2, "r2", True), (3, "r3", True), (4, "r4", False),
    ]  # fmt: skip
    assert state.runs[3].first_message == 4
    # The summary of ask one stands; the one made into ask two went with it.
    assert state.context_summary is not None and state.context_summary.up_to == 4
    assert state.ask(2).run_id == "r2" and state.ask_of_run("r4").number == 4
    with pytest.raises(ValueError, match=r"no ask 5 in this session \(asks 1–4\)"):
        state.ask(5)


def test_a_rewind_to_before_any_summary_drops_the_summary(tmp_path: Path) -> None:
    events = three_asks(tmp_path / "s.jsonl")
    before_rewind = [e for e in events if not isinstance(e, ev.Rewound)]
    to_one = ev.Rewound(seq=999, ask=1, asks=[1, 2, 3, 4], runs=["r1", "r2", "r3", "r4"],
                        conversation=True, files=False)  # fmt: skip
    state = reduce([*before_rewind, to_one])
    assert state.messages == [] and state.context_summary is None
    files_only = dataclasses.replace(to_one, conversation=False, asks=[], runs=[])
    assert len(reduce([*before_rewind, files_only]).messages) == len(reduce(before_rewind).messages)


def test_the_incremental_reducer_folds_a_rewind_as_reduce_does(tmp_path: Path) -> None:
    events = three_asks(tmp_path / "s.jsonl")
    live = Reducer()
    for event in events[:20]:
        live.apply(event)
    resumed = Reducer(live.state)  # a reducer over a state folded before
    for event in events[20:]:
        resumed.apply(event)
    assert resumed.state == reduce(events)


def test_the_transcript_numbers_the_asks_and_strikes_those_taken_back(tmp_path: Path) -> None:
    text = render_transcript(three_asks(tmp_path / "s.jsonl"))
    assert "## Ask 1 — one\n" in text and "## Ask 4 — four\n" in text
    assert "## ~~Ask 2 — two~~ (taken back)\n" in text
    assert "## ~~Ask 3 — three~~ (taken back)\n" in text
    assert text.count("the model no longer sees it") == 2
    assert (
        "↶ Rewound to before ask 2: asks 2 and 3 taken back; restored a.py; "
        "kept b.py (changed since)"
    ) in text
    assert text.index("## Ask 4") > text.index("↶ Rewound")


def test_a_fork_copies_the_conversation_before_the_ask_and_no_file_history(
    tmp_path: Path,
) -> None:
    events = three_asks(tmp_path / "s.jsonl")
    forked = fork_events(events, "f1", 4, created_at="NOW", ts=5.0)
    head = forked[0]
    assert isinstance(head, ev.SessionStarted) and head.session_id == "f1"
    assert head.forked_from is not None
    assert (head.forked_from.session_id, head.forked_from.ask, head.forked_from.asks) == (
        "s1",
        4,
        3,
    )
    assert (head.created_at, head.ts, head.workspace) == ("NOW", 5.0, "/ws")
    assert [e.seq for e in forked] == list(range(1, len(forked) + 1))
    kinds = {e.kind for e in forked}
    assert not kinds & {"checkpoint_started", "checkpoint", "undo"}
    (rewound,) = [e for e in forked if isinstance(e, ev.Rewound)]
    assert rewound.conversation and not rewound.files
    assert rewound.turns == rewound.restored == rewound.kept == []
    # The projection's summary is the fork's own line.
    (projected,) = [e for e in forked if isinstance(e, ev.ContextProjected)]
    (first_summary,) = [e for e in forked if isinstance(e, ev.ContextSummary) and e.run == "r2"]
    assert projected.summary_seq == first_summary.seq
    # It folds into the same history, and every line is a valid log line.
    state = reduce([SESSION_EVENTS.validate_python(to_wire(e)) for e in forked])
    start_of_four = next(i for i, e in enumerate(events) if e.run == "r4")
    original = reduce(events[:start_of_four])
    assert state.messages == original.messages
    assert state.forked_from == head.forked_from


def test_a_whole_fork_and_a_fork_before_the_first_ask(tmp_path: Path) -> None:
    events = three_asks(tmp_path / "s.jsonl")
    whole = fork_events(events, "f", None, created_at="T", ts=1.0)
    assert reduce(whole).messages == reduce(events).messages
    assert len(reduce(whole).runs) == 4
    empty = fork_events(events, "f", 1, created_at="T", ts=1.0)
    assert len(empty) == 1 and reduce(empty).runs == []
    with pytest.raises(ForkRefused, match=r"no ask 5 in the session \(asks 1–4\)"):
        fork_events(events, "f", 5, created_at="T", ts=1.0)
    with pytest.raises(ForkRefused, match="no ask 1: the session has no asks yet"):
        fork_events(events[:1], "f", 1, created_at="T", ts=1.0)


def test_the_store_writes_a_fork_whole_and_lists_where_it_came_from(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    session, log = store.create(tmp_path, "scripted:test")
    ask(log, "r1", "one")
    ask(log, "r2", "two")
    log.close()
    fork = store.fork(session, 2)
    assert fork != session
    _, state = store.open(fork)
    assert [m.text for m in state.messages if m.role == "user"][:1] == ["one"]
    listed = {info.id: info for info in store.list()}
    assert (listed[fork].forked_from, listed[fork].forked_at) == (session, 2)
    assert listed[session].forked_from is None
    assert not list(store.sessions_dir.glob(".*"))  # no temporary file left
    text = render_transcript(read_events(store.path_for(fork)))
    assert f"- Forked from: {session}, before its ask 2 (ask 1 below is its history)" in text
    with pytest.raises(SessionNotFound):
        store.fork("20990101-000000-abcdef", None)


def test_a_rewind_takes_back_the_checklists_and_plans_its_asks_made(tmp_path: Path) -> None:
    with SessionLog(tmp_path / "s.jsonl") as log:
        log.append(ev.SessionStarted(session_id="s1", workspace="/ws", model="m", created_at="T"))
        for run, word in (("r1", "one"), ("r2", "two")):
            ask(log, run, word)
            step = ev.PlanStepRecord(step=f"step {word}", status="pending")
            log.append(ev.PlanUpdated(run=run, call_id=f"{run}-p", plan=[step]))
            log.append(ev.PlanReviewed(
                run=run, call_id=f"{run}-pp", choice="default", person=True, plan=f"plan {word}"
            ))  # fmt: skip
        before = reduce(read_events(log.path))
        assert before.agreed_plan == "plan two" and before.plan is not None
        assert before.plan.steps[0].step == "step two"
        log.append(ev.Rewound(ask=2, asks=[2], runs=["r2"], conversation=True, files=False))
    after = reduce(read_events(tmp_path / "s.jsonl"))
    assert after.agreed_plan == "plan one"
    assert after.plan is not None and after.plan.steps[0].step == "step one"
