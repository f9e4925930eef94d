"""Compaction with the scripted model: a visible, marked summary call; history untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls.contracts.outcomes import TerminalReason
from agentls.permissions.approvers import AutoApprover
from agentls.permissions.modes import Mode
from agentls.providers.scripted import ScriptedProvider
from agentls.session.events import ContextSummary, UsageEvent
from agentls.session.reducer import reduce
from agentls.session.transcript import render_transcript
from tests.unit.helpers import events_of

from .helpers import Recording, assert_pairs_intact, dump_tool, open_conversation

# Usage with no input tokens leaves the estimate uncalibrated, so the figures below
# (a 2,048-token window; 900-character pages, about 260 tokens a turn) decide alone
# when the history passes 80% of the window: on the seventh model call.
NO_CALIBRATION = {"input_tokens": 0, "output_tokens": 5}
SETTINGS = {"model": "scripted:t", "contextWindow": 2048, "verbatimTurns": 2, "maxTurns": 20}
SUMMARY = "The pages 0-3 were dumped; each held filler text."


def dump_turn(n: int) -> dict[str, Any]:
    return {"toolCalls": [{"name": "dump", "input": {"n": n}}], "usage": NO_CALIBRATION}


def summary_turn(text: str = SUMMARY) -> dict[str, Any]:
    # A summary call shows the model no tools at all.
    return {"expect": {"toolsExclude": ["dump"]}, "text": text, "usage": NO_CALIBRATION}


async def test_compaction_is_a_separate_logged_call_marked_as_a_summary(tmp_path: Path) -> None:
    script = [*(dump_turn(n) for n in range(6)), summary_turn(), dump_turn(6),
              {"text": "Done.", "usage": NO_CALIBRATION}]  # fmt: skip
    provider = Recording(ScriptedProvider(script))
    conv, manager = open_conversation(tmp_path, provider, SETTINGS, tools=[dump_tool(900)])
    result = await conv.ask("Dump the pages.", approver=AutoApprover())

    assert result.reason is TerminalReason.COMPLETED, result.detail
    assert [len(i.tools) for i in provider.inputs] == [1] * 6 + [0] + [1, 1]
    summary_input = provider.inputs[6]
    assert "Dump the pages." in summary_input.messages[0].text  # the region, as a transcript
    assert summary_input.max_output_tokens == 256

    # After it the model sees the summary head and the two verbatim turns, nothing older.
    after = provider.inputs[7]
    head = after.messages[0].text
    assert "summary written by a model, not the record" in head
    assert SUMMARY in head and "Dump the pages." in head  # the goal, pinned
    assert after.messages[1:] == tuple(conv.messages[9:13])  # history[9:] of 13
    for request in provider.inputs:
        assert_pairs_intact(request.messages)

    events = events_of(conv)
    [summary] = [e for e in events if isinstance(e, ContextSummary)]
    assert summary.summary is True and summary.text == SUMMARY
    assert (summary.from_message, summary.up_to_message, summary.reason) == (
        0, 9, "threshold"
    )  # fmt: skip
    kinds = [e.kind for e in events]
    at = kinds.index("context_summary")
    assert kinds[at - 1 : at + 4] == [
        "tool_results", "context_summary", "usage", "context_projected", "model_request"
    ]  # fmt: skip
    usage = events[at + 1]
    assert isinstance(usage, UsageEvent) and usage.purpose == "compaction"
    # The summary call is priced and counted like any other.
    assert result.usage.output_tokens == 9 * 5

    # The reducer's history is the record, whole; the summary is kept beside it.
    state = reduce(events)
    assert state.messages == conv.messages and len(state.messages) == 1 + 2 * 7 + 1
    assert all(SUMMARY not in m.text for m in state.messages)
    assert state.context_summary is not None and state.context_summary.up_to == 9

    transcript = render_transcript(events)
    assert "Context compacted" in transcript and "written by the model" in transcript
    assert f"> {SUMMARY}" in transcript
    manager.close()


async def test_a_resumed_session_continues_from_its_logged_summary(tmp_path: Path) -> None:
    script = [*(dump_turn(n) for n in range(6)), summary_turn(), {"text": "Paused."}]
    first = Recording(ScriptedProvider(script))
    conv, manager = open_conversation(tmp_path, first, SETTINGS, tools=[dump_tool(900)])
    await conv.ask("Dump the pages.", approver=AutoApprover())
    session_id, seen = conv.session_id, first.inputs[-1]
    manager.close()

    # No new summary call on resume: the next prompt is projected on the logged summary.
    second = Recording(ScriptedProvider([{"text": "Still here.", "usage": NO_CALIBRATION}]))
    conv, manager = open_conversation(
        tmp_path, second, SETTINGS, tools=[dump_tool(900)], session_id=session_id
    )
    result = await conv.ask("Are you there?")
    assert result.reason is TerminalReason.COMPLETED, result.detail
    [resumed] = second.inputs
    assert resumed.messages[0] == seen.messages[0]  # the same head, from the log
    assert resumed.messages[1:-2] == seen.messages[1:]
    assert resumed.messages[-1].text == "Are you there?"
    manager.close()


async def test_pinned_goal_edited_files_refused_calls_and_plan_survive(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("x = 1\n" * 400)
    plan = "PLAN: 1. create app.py 2. fix its greeting 3. run the tests"
    read = {"name": "read_file", "input": {"path": "notes.txt"}}
    script = [
        {"text": plan, "usage": NO_CALIBRATION},  # run 1, in plan mode
        {"toolCalls": [{"name": "write_file", "input": {"path": "app.py", "content": "hi\n"}}],
         "usage": NO_CALIBRATION},
        {"toolCalls": [{"name": "edit_file", "input": {
            "path": "app.py", "old_text": "hi", "new_text": "hello"}}], "usage": NO_CALIBRATION},
        {"toolCalls": [{"name": "run_command", "input": {"command": "rm -rf build"}}],
         "usage": NO_CALIBRATION},
        *({"toolCalls": [read], "usage": NO_CALIBRATION} for _ in range(4)),
        summary_turn("Created app.py and fixed its greeting."),
        {"text": "Done.", "usage": NO_CALIBRATION},
    ]  # fmt: skip
    provider = Recording(ScriptedProvider(script))
    # A window the reads fill only after the refused command (the tools' definitions
    # take part of it): that call is summarised, so it must be pinned.
    settings = {**SETTINGS, "contextWindow": 5120, "verbatimTurns": 1, "mode": "plan"}
    conv, manager = open_conversation(tmp_path, provider, settings)
    await conv.ask("Plan how to add a greeting app.")
    conv.set_mode(Mode.ACCEPT_EDITS)
    # Commands still need a yes in accept-edits mode: with no one to ask, it is refused.
    result = await conv.ask("Go ahead with the plan.")
    assert result.reason is TerminalReason.COMPLETED, result.detail

    summary_at = next(i for i, r in enumerate(provider.inputs) if not r.tools)
    head = provider.inputs[summary_at + 1].messages[0].text
    assert "The person's first request: Plan how to add a greeting app." in head
    assert "The person's latest request: Go ahead with the plan." in head
    assert "Files edited in this session: app.py (edit_file)" in head
    assert 'run_command {"command":"rm -rf build"} — Error (permission_denied)' in head
    assert plan in head
    session_id = conv.session_id
    manager.close()

    # A resumed session pins the same plan, read back from the log.
    conv, manager = open_conversation(tmp_path, provider, settings, session_id=session_id)
    assert conv.projector.plan == plan
    manager.close()
