"""agentls.ask over LSP: answers, unsaved buffers, events and progress."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.lsp.conftest import EditorFactory
from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import tool_result_text

USAGE = {"input_tokens": 1000, "output_tokens": 132}


async def test_ask_and_wait_reads_the_unsaved_buffer(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "notes.py").write_text("ON_DISK = True\n")
    editor.open("notes.py", "UNSAVED = True\n")
    fake.add(
        turn("Reading.", tool_calls=[("toolu_1", "read_file", {"path": "notes.py"})]),
        turn("The buffer says UNSAVED."),
    )
    result = await editor.ask("what is in notes.py?", wait=True)
    assert result["terminalReason"] == "completed"
    assert result["text"] == "The buffer says UNSAVED."
    assert result["usage"]["inputTokens"] > 0 and result["usage"]["costUsd"] > 0
    assert "UNSAVED = True" in tool_result_text(fake, 1)
    assert "ON_DISK" not in tool_result_text(fake, 1)


async def test_ask_returns_at_once_and_streams_events(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.txt").write_text("alpha\n")
    fake.add(
        turn("Let me look.", tool_calls=[("toolu_1", "read_file", {"path": "a.txt"})]),
        turn("It says alpha. " * 20),
    )
    started = await editor.ask("read a.txt")
    assert started["status"] == "started"
    assert started["sessionId"] and started["runId"].startswith("run-")
    finished = await editor.wait_finished()
    assert finished["runId"] == started["runId"]
    assert finished["terminalReason"] == "completed"
    kinds = editor.kinds()
    for kind in ("text", "tool_started", "tool_finished", "usage", "run_finished"):
        assert kind in kinds, kinds
    started_event = next(e for e in editor.events if e["kind"] == "tool_started")
    assert started_event["summary"] == "read_file a.txt"
    text = "".join(e["text"] for e in editor.events if e["kind"] == "text")
    assert text == "Let me look." + "It says alpha. " * 20
    # coalesced: far fewer notifications than the model's deltas
    assert sum(1 for k in kinds if k == "text") < 10
    # progress went begin -> report -> end, and a message ends the run
    reports = await editor.wait_progress_end()
    assert reports[0].kind == "begin" and reports[-1].kind == "end"
    assert any("read_file a.txt" in (r.message or "") for r in reports[1:-1])
    await editor.wait_for_message("agentls answered: It says alpha.")


async def test_continuing_a_session(editor: Editor, fake: FakeAnthropic) -> None:
    fake.add(turn("First answer."), turn("Second answer."))
    first = await editor.ask("one", wait=True)
    second = await editor.ask("two", wait=True, sessionId=first["sessionId"])
    assert second["sessionId"] == first["sessionId"]
    history = fake.requests[1].body["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    sessions = await editor.command("agentls.sessions")
    assert [s["sessionId"] for s in sessions] == [first["sessionId"]]
    assert sessions[0]["runs"] == 2


async def test_a_scripted_session_has_no_price_in_its_events_nor_in_the_session_list(
    open_editor: EditorFactory, tmp_path: Path
) -> None:
    # A scripted model's price is nominal (for budget tests): an editor shows no
    # dollars for it, so the run's events and the session list agree on null.
    script = tmp_path / "hello.json"
    script.write_text(json.dumps({"turns": [{"text": "Hello.", "usage": USAGE}]}))
    editor = await open_editor(init_options={"model": f"scripted:{script}"})
    result = await editor.ask("say hello", wait=True)
    assert result["usage"]["inputTokens"] == 1000 and result["usage"]["costUsd"] is None
    finished = await editor.wait_finished()
    assert finished["usage"]["costUsd"] is None
    sessions = await editor.command("agentls.sessions")
    assert [(s["sessionId"], s["costUsd"]) for s in sessions] == [(result["sessionId"], None)]


async def test_transcript_opens_in_the_editor(editor: Editor, fake: FakeAnthropic) -> None:
    fake.add(turn("Hello there."))
    result = await editor.ask("say hello", wait=True)
    shown = await editor.command("agentls.showTranscript", {"sessionId": result["sessionId"]})
    assert shown["shown"] is True
    path = Path(shown["uri"].removeprefix("file://"))
    assert "say hello" in path.read_text() and "Hello there." in path.read_text()
    assert editor.client.shown_documents[-1].uri == shown["uri"]


async def test_set_mode_during_a_session(editor: Editor, fake: FakeAnthropic) -> None:
    fake.add(turn("First."), turn("Planned."))
    first = await editor.ask("one", wait=True)
    changed = await editor.command(
        "agentls.setMode", {"mode": "plan", "sessionId": first["sessionId"]}
    )
    assert changed == {"mode": "plan", "sessionId": first["sessionId"]}
    await editor.ask("two", wait=True, sessionId=first["sessionId"])
    before = {t["name"] for t in fake.requests[0].body["tools"]}
    after = {t["name"] for t in fake.requests[1].body["tools"]}
    assert "run_command" in before and "write_file" in before
    assert after == {"read_file", "list_files", "search", "problems", "definition", "references",
                     "symbols", "remember", "update_plan", "propose_plan", "process_output",
                     "process_stop"}  # fmt: skip
