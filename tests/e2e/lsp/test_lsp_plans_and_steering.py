"""Plans and steering over LSP: the model's checklist as an `agentls/event` `plan` (and
pinned through a compaction), a proposed plan answered through showMessageRequest (each
answer, and none) with the mode the next request's tools show, and `agentls.steer`
delivered at the next turn boundary; cancel still ends the run at once."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.lsp.conftest import EditorFactory
from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, Reply, turn
from tests.helpers import tool_names, until

STEPS = [
    {"step": "Read the notes", "status": "in_progress"},
    {"step": "Summarise them", "status": "pending"},
]
PLAN = "# Plan\n1. Add shout() to greet.py\n2. Run it"
TITLES = ["Switch to default", "Switch to accept-edits", "Keep planning"]
RELEASE_COMMAND = "while [ ! -e release ]; do sleep 0.05; done; echo released"


def last_user_texts(fake: FakeAnthropic, request: int) -> list[str]:
    """The text blocks of the last user message of a request (after its tool results)."""
    last = fake.requests[request].body["messages"][-1]
    assert last["role"] == "user"
    return [b["text"] for b in last["content"] if b["type"] == "text"]


def log_events(state: Path) -> list[dict[str, Any]]:
    (path,) = sorted((state / "sessions").glob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_update_plan_reaches_the_editor_as_a_plan_event(
    editor: Editor, fake: FakeAnthropic
) -> None:
    fake.add(
        turn(tool_calls=[("toolu_p", "update_plan", {"plan": STEPS, "explanation": "two"})]),
        turn("Planned."),
    )
    result = await editor.ask("plan it", wait=True)
    assert result["terminalReason"] == "completed"
    (plan,) = [e for e in editor.events if e["kind"] == "plan"]
    assert plan["plan"] == STEPS and plan["explanation"] == "two"
    assert plan["turn"] == 1 and plan["runId"] == result["runId"]
    kinds = editor.kinds()
    assert kinds.index("tool_started") < kinds.index("plan") < kinds.index("tool_finished")
    assert "Plan updated: 0 of 2 steps completed." in json.dumps(fake.requests[1].body)


async def test_the_plan_survives_a_compaction_in_what_the_model_is_sent(
    open_editor: EditorFactory, fake: FakeAnthropic, root: Path
) -> None:
    for n in range(8):
        (root / f"notes{n}.txt").write_text(f"note {n}: " + "lorem ipsum dolor " * 120)
    reads = iter(range(8))

    def model(body: dict[str, Any]) -> Reply:
        tokens = {"input_tokens": len(json.dumps(body)) // 4, "output_tokens": 5}
        if not body.get("tools"):  # the compaction's summary call
            return turn("Summary: notes were read.", usage=tokens)
        if len(body["messages"]) == 1:
            steps = [{**STEPS[0], "status": "completed"}, {**STEPS[1], "status": "in_progress"}]
            return turn(tool_calls=[("toolu_plan", "update_plan", {"plan": steps})], usage=tokens)
        head = body["messages"][0]["content"]
        head_text = head if isinstance(head, str) else json.dumps(head)
        n = next(reads, None)
        if "<pinned>" in head_text or n is None:
            return turn("Done reading.", usage=tokens)
        return turn(tool_calls=[(f"toolu_r{n}", "read_file", {"path": f"notes{n}.txt"})],
                    usage=tokens)  # fmt: skip

    fake.responder = model
    editor: Editor = await open_editor(
        configuration={"contextWindow": 4096, "verbatimTurns": 1, "mode": "bypass"}
    )
    result = await editor.ask("read the notes and summarise them", wait=True)
    assert result["terminalReason"] == "completed", result
    summaries = [i for i, r in enumerate(fake.requests) if not r.body.get("tools")]
    assert summaries, "no compaction happened"
    after = fake.requests[summaries[0] + 1].body
    head = json.dumps(after["messages"][0]["content"])
    assert "update_plan" not in json.dumps(after["messages"][1:])  # the call itself is summarised
    assert "The task's checklist (update_plan" in head
    assert "[x] Read the notes" in head and "[>] Summarise them" in head


@pytest.mark.parametrize(
    ("title", "mode"),
    [("Switch to default", "default"), ("Switch to accept-edits", "accept-edits")],
)
async def test_a_plan_approved_switches_the_mode_and_the_same_run_goes_on(
    open_editor: EditorFactory, fake: FakeAnthropic, isolated_state: Path, title: str, mode: str
) -> None:
    editor: Editor = await open_editor(configuration={"mode": "plan"})
    editor.answers = [title]
    fake.add(turn(tool_calls=[("toolu_pp", "propose_plan", {"plan": PLAN})]), turn("On it."))
    result = await editor.ask("plan a shout()", wait=True)
    assert result["terminalReason"] == "completed" and result["text"] == "On it."
    (prompt,) = editor.prompts
    assert [a.title for a in prompt.actions] == TITLES
    assert "# Plan" in prompt.message
    assert "propose_plan" in tool_names(fake, 0) and "edit_file" not in tool_names(fake, 0)
    assert "edit_file" in tool_names(fake, 1) and "propose_plan" not in tool_names(fake, 1)
    assert f"switched to {mode} mode" in json.dumps(fake.requests[1].body)
    kinds = editor.kinds()
    assert kinds.index("plan_proposed") < kinds.index("mode_changed") < kinds.index("run_finished")
    assert next(e for e in editor.events if e["kind"] == "mode_changed")["mode"] == mode
    events = log_events(isolated_state)
    reviewed = next(e for e in events if e["kind"] == "plan_reviewed")
    assert (reviewed["choice"], reviewed["person"], reviewed["plan"]) == (mode, True, PLAN)
    assert [e["mode"] for e in events if e["kind"] == "mode_changed" and e["run"]] == [mode]
    # The session keeps the mode: the next ask starts in it.
    fake.add(turn("Still here."))
    await editor.ask("and now?", sessionId=result["sessionId"], wait=True)
    assert "edit_file" in tool_names(fake, 2)


async def test_keep_planning_stays_in_plan_mode_and_a_dismissed_prompt_ends_with_the_plan(
    open_editor: EditorFactory, fake: FakeAnthropic, isolated_state: Path
) -> None:
    editor: Editor = await open_editor(configuration={"mode": "plan"})
    editor.answers = ["Keep planning", None]  # the second prompt is dismissed: no one said
    fake.add(
        turn(tool_calls=[("toolu_1", "propose_plan", {"plan": "first draft"})]),
        turn(tool_calls=[("toolu_2", "propose_plan", {"plan": PLAN})]),
    )
    result = await editor.ask("plan a shout()", wait=True)
    assert result["terminalReason"] == "completed"
    assert result["text"] == PLAN  # the plan is the run's answer
    assert len(fake.requests) == 2  # no model call after the unanswered plan
    assert "keep planning" in json.dumps(fake.requests[1].body)
    assert "edit_file" not in tool_names(fake, 1) and "propose_plan" in tool_names(fake, 1)
    assert "mode_changed" not in editor.kinds()
    events = log_events(isolated_state)
    assert [(e["choice"], e["person"]) for e in events if e["kind"] == "plan_reviewed"] == [
        ("keep-planning", True),
        ("keep-planning", False),
    ]
    assert not [e for e in events if e["kind"] == "mode_changed" and e.get("run")]


async def start_a_waiting_command(editor: Editor, fake: FakeAnthropic) -> dict[str, Any]:
    """A run in a tool call that goes on until the test makes `release`."""
    editor.answers = ["Allow once"]
    fake.add(turn(tool_calls=[("toolu_wait", "run_command", {"command": RELEASE_COMMAND})]))
    started: dict[str, Any] = await editor.ask("wait for the release")
    await editor.wait_for_event("approval_answered")  # the call is let through: it runs now
    return started


async def test_a_steering_message_reaches_the_next_request_and_replays(
    editor: Editor, fake: FakeAnthropic, root: Path, isolated_state: Path
) -> None:
    started = await start_a_waiting_command(editor, fake)
    sent = await editor.command(
        "agentls.steer", {"sessionId": started["sessionId"], "prompt": "use pathlib instead"}
    )
    assert sent == {"sessionId": started["sessionId"], "runId": started["runId"], "queued": True}
    fake.add(turn("Using pathlib."))
    (root / "release").touch()
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed"
    assert last_user_texts(fake, 1) == ["use pathlib instead"]  # after the command's result
    steered = next(e for e in editor.events if e["kind"] == "steered")
    assert (steered["text"], steered["turn"]) == ("use pathlib instead", 1)
    logged = [e for e in log_events(isolated_state) if e["kind"] == "steered"]
    assert [(e["text"], e["turn"]) for e in logged] == [("use pathlib instead", 1)]
    replay = subprocess.run(
        [sys.executable, "-m", "agentls", "replay", started["sessionId"]],
        env={"AGENTLS_STATE_DIR": str(isolated_state), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "the runtime made the same decisions" in replay.stdout


async def test_two_messages_arrive_together_and_none_is_queued_without_a_run(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    started = await start_a_waiting_command(editor, fake)
    session = started["sessionId"]
    await editor.command("agentls.steer", {"sessionId": session, "prompt": "one more thing"})
    await editor.command("agentls.steer", {"sessionId": session, "prompt": "and another"})
    fake.add(turn("Both read."))
    (root / "release").touch()
    await editor.wait_finished()
    assert last_user_texts(fake, 1) == ["one more thing", "and another"]
    idle = await editor.command("agentls.steer", {"sessionId": session, "prompt": "hello?"})
    assert idle == {"sessionId": session, "runId": None, "queued": False}


async def test_a_message_sent_while_the_model_answers_makes_another_turn(
    editor: Editor, fake: FakeAnthropic
) -> None:
    answering = threading.Event()

    def model(body: dict[str, Any]) -> Reply:
        if len(fake.requests) == 1:  # held until the person has written
            answering.wait(30)
            return turn("First answer.")
        return turn("Read your note.")

    fake.responder = model
    started = await editor.ask("answer me")
    await until(lambda: len(fake.requests) == 1, "the model call")
    await editor.command(
        "agentls.steer", {"sessionId": started["sessionId"], "prompt": "one more thing"}
    )
    answering.set()
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed" and finished["text"] == "Read your note."
    messages = fake.requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert json.dumps(messages[2]["content"]).count("one more thing") == 1
    assert finished["turns"] == 2


async def test_cancel_ends_the_run_at_once_with_steering_waiting(
    editor: Editor, fake: FakeAnthropic
) -> None:
    started = await start_a_waiting_command(editor, fake)
    session = started["sessionId"]
    await editor.command("agentls.steer", {"sessionId": session, "prompt": "never mind"})
    await editor.command("agentls.cancel", {"sessionId": session})
    finished = await editor.wait_finished(timeout=5)
    assert finished["terminalReason"] == "aborted"
    assert "steered" not in editor.kinds()
    assert len(fake.requests) == 1  # nothing went to the model after the cancel


async def test_steering_an_unknown_session_is_invalid(editor: Editor) -> None:
    with pytest.raises(Exception, match="not open"):
        await editor.command("agentls.steer", {"sessionId": "nope", "prompt": "hi"})
