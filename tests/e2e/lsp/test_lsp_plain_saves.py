"""A plain client's open buffer reaches the disk through the person's save: the
run says it waits (`waiting_for_save`, progress), and undo follows the same rule."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.e2e.lsp.editor import Editor, capabilities, plain_client
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import tool_result_text, until


def person_saves(editor: Editor, root: Path, uri: str, rel: str) -> None:
    (root / rel).write_text(editor.text(uri))
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


def edit_call(old: str, new: str, call_id: str = "toolu_e") -> tuple[str, str, dict]:
    return (call_id, "edit_file", {"path": "a.py", "old_text": old, "new_text": new})


async def test_the_run_says_it_waits_for_the_persons_save(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    editor = await plain_client(open_editor)
    (root / "a.py").write_text("x = 1\n")
    uri = editor.open("a.py")
    editor.answers = ["Apply"]
    fake.add(turn(tool_calls=[edit_call("x = 1\n", "x = 2\n")]), turn("Done."))
    await editor.ask("change x")
    waiting = await editor.wait_for_event("waiting_for_save")
    assert waiting["paths"] == ["a.py"] and waiting["seconds"] == 120
    assert waiting["sessionId"] and waiting["runId"]
    await until(
        lambda: any(
            getattr(r, "message", None) == "waiting for your save: a.py"
            for rs in editor.client.progress_reports.values()
            for r in rs
        ),
        "the progress report",
    )
    person_saves(editor, root, uri, "a.py")
    await editor.wait_finished()
    kinds = editor.kinds()
    assert (
        kinds.index("edit_applied") < kinds.index("waiting_for_save") < kinds.index("run_finished")
    )
    assert (root / "a.py").read_text() == "x = 2\n"


async def test_undo_of_an_open_buffer_waits_for_the_persons_save(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    """Undo answers at once; the file is not written behind the restored buffer;
    the next command waits for the person's save and sees the restored file."""
    editor = await plain_client(open_editor)
    (root / "a.py").write_text("x = 1\n")
    uri = editor.open("a.py")
    editor.answers = ["Apply"]
    fake.add(turn(tool_calls=[edit_call("x = 1\n", "x = 2\n")]), turn("Done."))
    await editor.ask("change x")
    await editor.wait_for_message("a.py holds the accepted edit; save it to go on")
    person_saves(editor, root, uri, "a.py")
    result = await editor.wait_finished()

    undone = await editor.command("agentls.undo", {"sessionId": result["sessionId"]})
    assert undone["done"] and undone["restored"] == ["a.py"]
    assert editor.text(uri) == "x = 1\n"  # the buffer is back...
    await editor.wait_for_message("a.py holds the undo; save it to go on")
    assert (root / "a.py").read_text() == "x = 2\n"  # ...the disk waits for the save

    editor.answers = ["Allow once"]
    fake.add(turn(tool_calls=[("toolu_c", "run_command", {"command": "cat a.py"})]), turn("Ok."))
    seen = len(editor.events)
    await editor.ask("show a.py", sessionId=result["sessionId"])
    await until(  # the command waits, and says so
        lambda: any(e["kind"] == "waiting_for_save" for e in editor.events[seen:]), "the wait"
    )
    (waiting,) = [e for e in editor.events[seen:] if e["kind"] == "waiting_for_save"]
    assert waiting["paths"] == ["a.py"] and waiting["runId"] != result["runId"]
    person_saves(editor, root, uri, "a.py")
    await editor.wait_finished()
    assert (root / "a.py").read_text() == "x = 1\n"
    assert "x = 1" in tool_result_text(fake, 3)  # the command ran after the save
    assert not any("wrote a.py itself" in m.message for m in editor.client.messages)


async def test_undo_with_no_save_gets_the_file_written(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    editor: Editor = await open_editor(
        caps=capabilities(saves_edits=False),
        init_options={"model": "anthropic:claude-sonnet-4-5", "approvalTimeoutSeconds": 1},
    )
    editor.save_edits = False
    (root / "a.py").write_text("x = 1\n")
    uri = editor.open("a.py")
    editor.answers = ["Apply"]
    fake.add(turn(tool_calls=[edit_call("x = 1\n", "x = 2\n")]), turn("Done."))
    await editor.ask("change x")
    await editor.wait_for_message("a.py holds the accepted edit; save it to go on")
    person_saves(editor, root, uri, "a.py")
    result = await editor.wait_finished()

    await editor.command("agentls.undo", {"sessionId": result["sessionId"]})
    await editor.wait_for_message("wrote a.py itself (no save came)")
    assert editor.text(uri) == "x = 1\n" and (root / "a.py").read_text() == "x = 1\n"


async def test_no_always_allow_when_no_rule_could_cover_the_call(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    editor.answers = ["Allow once"]
    command = "python3 -c 'print(6 * 7)'"
    fake.add(turn(tool_calls=[("toolu_c", "run_command", {"command": command})]), turn("42."))
    await editor.ask("compute", wait=True)
    (prompt,) = editor.prompts
    assert [a.title for a in prompt.actions or []] == ["Allow once", "Deny"]
    assert command in prompt.message and "Always allow" not in prompt.message
    assert "42" in tool_result_text(fake, 1)
