"""Editors without a usable prompt: approvals and reviews wait as code actions.

Scripted clients stand in for editors that cannot run here: one shaped like
Helix up to 25.07 (showMessageRequest answered MethodNotFound, no showDocument,
no $/cancelRequest), one like Kate (applyEdit taken only within 2 s of the
person's command), one like Sublime (declares changeAnnotationSupport but
shows no preview).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.e2e.editors.clients import (
    SavingEditor,
    accept_edits_like_kate,
    code_actions,
    no_prompts,
    pick,
    titled,
    wait_for_actions,
)
from tests.e2e.editors.real_editor import DEMO_EDITED, make_demo_workspace
from tests.e2e.lsp.editor import Editor, capabilities
from tests.fakes.anthropic_server import FakeAnthropic, stall, turn
from tests.helpers import tool_result_text

GREET = "def greet(name):\n    return f'hello {name}'\n"
SHOUT = GREET + "\n\ndef shout(name):\n    return greet(name).upper()\n"


def command(cmd: str, call_id: str = "toolu_c") -> tuple[str, str, dict]:
    return (call_id, "run_command", {"command": cmd})


def edit(call_id: str = "toolu_e") -> tuple[str, str, dict]:
    return (call_id, "edit_file", {"path": "greet.py", "old_text": GREET, "new_text": SHOUT})


def script(fake: FakeAnthropic) -> None:
    fake.add(
        turn(tool_calls=[command("touch ran")]),
        turn(tool_calls=[edit()]),
        turn("Added shout()."),
    )


async def helix(open_client, root: Path) -> tuple[Editor, str]:
    (root / "greet.py").write_text(GREET)
    editor: Editor = await open_client(
        name="helix", caps=capabilities(show_document=False, saves_edits=False)
    )
    editor.save_edits = False  # a plain client: the server puts accepted edits on disk
    editor.answers = [no_prompts] * 5
    return editor, editor.open("greet.py")


async def test_helix_flow_through_code_actions(open_client, fake: FakeAnthropic, root: Path):
    editor, uri = await helix(open_client, root)
    script(fake)
    started = await editor.ask("add shout and run it", uri=uri)
    saving = asyncio.ensure_future(SavingEditor(editor).save_when_asked(uri))  # :w when asked

    actions = await wait_for_actions(editor, uri, "agentls: Allow once")
    assert [a.title for a in actions] == [
        "agentls: Allow once: run_command: touch ran",
        "agentls: Always allow: run_command(touch ran)",
        "agentls: Deny: run_command: touch ran",
        "agentls: Cancel the run",
    ]
    (shown,) = [d for d in editor.client.diagnostics[uri] if d.source == "agentls"]
    assert shown.severity == types.DiagnosticSeverity.Information
    assert "touch ran" in shown.message and "Allow once" in shown.message
    assert list(titled(actions, "agentls: Allow once").diagnostics or []) == [shown]
    assert (await editor.wait_for_event("question"))["answers"][0]["answer"] == "allow_once"
    await editor.wait_for_message("cannot show prompts")
    await pick(editor, titled(actions, "agentls: Allow once"))

    actions = await wait_for_actions(editor, uri, "agentls: Apply")
    assert [a.title for a in actions][:2] == [
        "agentls: Apply: edit greet.py (+4 −0 lines)",
        "agentls: Reject: edit greet.py (+4 −0 lines)",
    ]  # no "Show diff": this editor cannot open documents; the diagnostic holds the diff
    (shown,) = [d for d in editor.client.diagnostics[uri] if d.source == "agentls"]
    assert shown.range.start.line == 2 and "+def shout(name):" in shown.message
    assert editor.edits == []  # nothing is sent before the person picks Apply
    answered = await pick(editor, titled(actions, "agentls: Apply"))
    assert answered == {"id": answered["id"], "answer": "apply"}
    assert len(editor.edits) == 1  # sent while the person's command was open
    await saving

    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed" and finished["text"] == "Added shout()."
    assert finished["sessionId"] == started["sessionId"]
    assert (root / "ran").exists()
    assert editor.text(uri) == SHOUT and (root / "greet.py").read_text() == SHOUT
    assert not editor.client.diagnostics[uri]  # cleared once answered
    assert await code_actions(editor, uri) == []
    closed = [e["answer"] for e in editor.events if e["kind"] == "question_closed"]
    assert closed == ["allow_once", "apply"]
    assert len(editor.prompts) == 1  # tried once, then code actions only


async def test_deny_and_reject_through_code_actions(open_client, fake: FakeAnthropic, root: Path):
    editor, uri = await helix(open_client, root)
    script(fake)
    await editor.ask("add shout and run it", uri=uri)
    for answer in ("agentls: Deny", "agentls: Reject"):
        await pick(editor, titled(await wait_for_actions(editor, uri, answer), answer))
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed"
    assert not (root / "ran").exists() and (root / "greet.py").read_text() == GREET
    assert editor.edits == []
    assert "the person chose Deny" in tool_result_text(fake, 1)
    assert "rejected" in tool_result_text(fake, 2)


async def test_no_answer_in_time_is_deny(open_client, fake: FakeAnthropic, root: Path):
    (root / "greet.py").write_text(GREET)
    editor: Editor = await open_client(
        init_options={"approvalsVia": "codeAction", "approvalTimeoutSeconds": 0.5}
    )
    uri = editor.open("greet.py")
    fake.add(turn(tool_calls=[command("touch late")]), turn("Gave up."))
    result = await editor.ask("make a file", uri=uri, wait=True)
    assert result["terminalReason"] == "completed"
    assert not (root / "late").exists() and editor.prompts == []
    assert "no answer in time" in tool_result_text(fake, 1)
    assert [e["answer"] for e in editor.events if e["kind"] == "question_closed"] == ["timeout"]
    assert not editor.client.diagnostics[uri]


async def test_kate_takes_the_edit_only_right_after_the_persons_command(
    open_client, fake: FakeAnthropic, root: Path
):
    (root / "greet.py").write_text(GREET)
    editor: Editor = await open_client(
        name="Kate",
        caps=capabilities(saves_edits=False, show_document=False),
        init_options={"reviewVia": "codeAction"},
    )
    editor.save_edits = False
    recent = accept_edits_like_kate(editor)
    kate = SavingEditor(editor)
    uri = kate.open("greet.py")
    editor.answers = ["Allow once"]  # (a prompt, for brevity: Kate's config asks with code actions)
    script(fake)
    await editor.ask("add shout and run it", uri=uri)
    saving = asyncio.ensure_future(kate.save_when_asked(uri))
    actions = await wait_for_actions(editor, uri, "agentls: Apply")
    assert not any("Show diff" in a.title for a in actions)  # Kate cannot open documents
    recent.forget()  # the ask is long past: an edit sent now would be refused
    assert not editor.apply_edits
    await pick(editor, titled(actions, "agentls: Apply"))
    await saving
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed"
    assert (root / "greet.py").read_text() == SHOUT and not kate.modified_on_disk(uri)
    assert [e["kind"] for e in editor.events if e["kind"].startswith("edit_")] == [
        "edit_proposed",
        "edit_applied",
    ]


async def test_kate_runs_the_bundled_demo_with_the_edit_on_disk(open_client, root: Path):
    """As a new user follows the Kate guide: the demo's edit must be on disk
    before its command (which imports what the edit added) runs."""
    make_demo_workspace(root)
    editor: Editor = await open_client(  # as editors/kate/lspclient.json sets it up
        name="Kate",
        caps=capabilities(saves_edits=False, show_document=False),
        init_options={
            "model": "scripted:demo",
            "approvalsVia": "codeAction",
            "reviewVia": "codeAction",
        },
    )
    editor.save_edits = False  # Kate leaves applied edits unsaved
    accept_edits_like_kate(editor)
    kate = SavingEditor(editor)
    uri = kate.open("greet.py")
    prompt = (
        "Add a shout() function to greet.py that returns the greeting in capitals, then run it."
    )
    await editor.ask(prompt, uri=uri)
    saving = asyncio.ensure_future(kate.save_when_asked(uri))
    actions = await wait_for_actions(editor, uri, "agentls: Apply")
    (shown,) = [d for d in editor.client.diagnostics[uri] if d.source == "agentls"]
    first_line, *diff = shown.message.splitlines()
    assert first_line == (
        "agentls asks: edit greet.py (+4 −0 lines)? Answer with a code action: Apply / Reject"
    )  # one short line; the diff below it, as Kate cannot open it as a document
    assert "+def shout(name: str) -> str:" in diff
    await pick(editor, titled(actions, "agentls: Apply"))
    said = await saving  # asked in one line; Ctrl+S: the edit on disk through Kate's save
    assert said == (
        "agentls: greet.py holds the accepted edit; save it to go on "
        "(after 120 s agentls writes it itself)"
    )
    actions = await wait_for_actions(editor, uri, "agentls: Allow once")
    await pick(editor, titled(actions, "agentls: Allow once"))
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed", finished
    assert editor.text(uri) == DEMO_EDITED and (root / "greet.py").read_text() == DEMO_EDITED
    assert not kate.modified_on_disk(uri)  # no "modified on disk" bar
    assert "HELLO, WORLD!" in (await editor.wait_for_event("tool_finished"))["line"]
    assert finished["usage"]["costUsd"] is None  # a script has no price


async def test_a_waiting_review_shows_where_the_person_looks(open_client, fake, root: Path):
    """Kate shows the diagnostics of the current document: the question is
    noted there too, not only in the edited file."""
    (root / "greet.py").write_text(GREET)
    (root / "notes.md").write_text("# notes\n")
    editor: Editor = await open_client(
        name="Kate", caps=capabilities(saves_edits=False), init_options={"reviewVia": "codeAction"}
    )
    editor.save_edits = False
    looking = editor.open("notes.md")
    fake.add(turn(tool_calls=[edit()]), turn("Added shout()."))
    await editor.ask("add shout")
    await wait_for_actions(editor, looking, "agentls: Apply")
    (shown,) = [d for d in editor.client.diagnostics[looking] if d.source == "agentls"]
    assert shown.range.start.line == 0 and "edit greet.py" in shown.message
    await pick(editor, titled(await code_actions(editor, looking), "agentls: Reject"))
    await editor.wait_finished()
    assert not editor.client.diagnostics[looking]  # gone once answered


async def test_cancel_without_arguments_and_the_latest_transcript(
    open_client, fake: FakeAnthropic, root: Path
):
    editor, uri = await helix(open_client, root)
    fake.add(stall(30, text="thinking"))
    started = await editor.ask("slow", uri=uri)
    await editor.wait_for_event("text")
    # Helix sends `:lsp-workspace-command agentls.cancel` with no arguments
    cancelled = await editor.command("agentls.cancel")
    assert cancelled == {
        "sessionId": None,
        "cancelled": True,
        "sessionIds": [started["sessionId"]],
    }
    assert (await editor.wait_finished(timeout=5))["terminalReason"] == "aborted"
    transcript = await editor.command("agentls.showTranscript")
    assert transcript["sessionId"] == started["sessionId"] and transcript["shown"] is False
    assert "slow" in Path(transcript["uri"].removeprefix("file://")).read_text()


async def test_a_request_written_in_a_comment(open_client, fake: FakeAnthropic, root: Path):
    (root / "greet.py").write_text(
        "# agentls: add a shout() function\n" + GREET + 'NOTE = "agentls: not a request"\n'
    )
    editor: Editor = await open_client()
    uri = editor.open("greet.py")
    assert await code_actions(editor, uri, line=1) == []
    assert await code_actions(editor, uri, line=3) == []  # in a string, not a request
    (action,) = await code_actions(editor, uri, line=0)
    assert action.title == "Ask agentls: add a shout() function"
    fake.add(turn("Sure."))
    started = await pick(editor, action)
    assert (await editor.wait_finished())["terminalReason"] == "completed"
    prompt = fake.requests[0].body["messages"][0]["content"][0]["text"]
    assert prompt.startswith("add a shout() function") and "line 1" in prompt
    assert "greet.py" in prompt and started["status"] == "started"


async def test_sublime_annotations_are_not_a_review(open_client, fake: FakeAnthropic, root: Path):
    (root / "greet.py").write_text(GREET)
    editor: Editor = await open_client(name="Sublime Text LSP", caps=capabilities(annotations=True))
    editor.answers = ["Apply"]
    fake.add(turn(tool_calls=[edit()]), turn("Done."))
    await editor.ask("add shout", wait=True)
    assert [a.title for a in editor.prompts[0].actions] == ["Apply", "Show diff", "Reject"]
    (params,) = editor.edits
    assert params.edit.change_annotations is None  # a plain edit, already reviewed


async def test_no_show_document_puts_the_diff_in_the_prompt(
    open_client, fake: FakeAnthropic, root: Path
):
    caps = capabilities(show_document=False)
    caps.workspace.workspace_edit.resource_operations = None  # type: ignore[union-attr]
    editor: Editor = await open_client(caps=caps)
    editor.answers = ["Apply"]
    fake.add(
        turn(tool_calls=[("toolu_w", "write_file", {"path": "new.py", "content": "x = 1\n"})]),
        turn("Created."),
    )
    await editor.ask("create new.py", wait=True)
    (prompt,) = editor.prompts
    assert [a.title for a in prompt.actions] == ["Apply", "Reject"]
    assert "+x = 1" in prompt.message
    (params,) = editor.edits
    (change,) = params.edit.document_changes  # no CreateFile: not declared by the client
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version is None
    assert (root / "new.py").read_text() == "x = 1\n"


async def test_bad_face_settings_are_reported(open_client, root: Path):
    editor: Editor = await open_client(init_options={"approvalsVia": "carrier pigeon"})
    message = await editor.wait_for_message("bad settings")
    assert "approvalsVia" in message


async def test_closing_the_buffer_unsaved_writes_the_accepted_edit(
    open_client, fake: FakeAnthropic, root: Path
):
    """Asked to save, the person closes the buffer instead: the accepted edit
    goes to disk at once, and the command sees it."""
    editor, uri = await helix(open_client, root)
    fake.add(
        turn(tool_calls=[edit()]),
        turn(tool_calls=[command("cat greet.py")]),
        turn("Added shout()."),
    )
    await editor.ask("add shout", uri=uri)
    actions = await wait_for_actions(editor, uri, "agentls: Apply")
    await pick(editor, titled(actions, "agentls: Apply"))
    await editor.wait_for_message("save it to go on")
    editor.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    actions = await wait_for_actions(editor, uri, "agentls: Allow once")
    await pick(editor, titled(actions, "agentls: Allow once"))
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed", finished
    assert (root / "greet.py").read_text() == SHOUT
    assert "def shout(name):" in tool_result_text(fake, 2)


async def test_edits_nobody_reviewed_are_written_without_waiting(
    open_client, fake: FakeAnthropic, root: Path
):
    """In mode accept-edits nobody is there to save: the server writes the open
    buffer's new text at once (the editor's "changed on disk" question follows)."""
    (root / "greet.py").write_text(GREET)
    editor: Editor = await open_client(
        name="helix",
        caps=capabilities(show_document=False, saves_edits=False),
        init_options={"mode": "accept-edits"},
    )
    editor.save_edits = False
    uri = editor.open("greet.py")
    fake.add(turn(tool_calls=[edit()]), turn("Added shout()."))
    await editor.ask("add shout", uri=uri)
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "completed", finished
    assert editor.text(uri) == SHOUT and (root / "greet.py").read_text() == SHOUT
    assert not any("save it to go on" in m.message for m in editor.client.messages)
