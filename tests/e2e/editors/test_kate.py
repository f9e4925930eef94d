"""Kate as its guide sets it up: the Kate-shaped client (`kate.py`) configured by
the shipped `editors/kate/lspclient.json`.

The guide's flow: the Python file the person works on is opened on agentls, so
an accepted edit goes into Kate's buffer (its undo takes it back) and reaches
the disk through the person's save; the symbol outline Kate asks every server
for is answered quietly; asks are offered only when they make sense.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsprotocol import types

from tests.e2e.editors import kate as kate_shape
from tests.e2e.editors.clients import pick, titled
from tests.e2e.editors.kate import Kate, shipped_config, with_model
from tests.e2e.editors.real_editor import DEMO_EDITED, make_demo_workspace
from tests.fakes.anthropic_server import FakeAnthropic, turn

REQUEST = "add a shout() function to greet.py, then run it"


async def open_kate(open_client, model: str = "scripted:demo") -> Kate:
    config = with_model(shipped_config(), model)
    entry = config["servers"]["agentls"]
    editor = await open_client(
        name=None, caps=kate_shape.capabilities(), init_options=entry["initializationOptions"]
    )
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=entry["settings"])
    )
    return Kate(editor, config)


async def actions_once(kate: Kate, uri: str, line: int, prefix: str) -> list[types.CodeAction]:
    """Alt+Return until an action starting with ``prefix`` shows (the run is under way)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while True:
        actions = await kate.code_actions(uri, line)
        if any(a.title.startswith(prefix) for a in actions):
            return actions
        assert loop.time() < deadline, [a.title for a in actions]
        await asyncio.sleep(0.02)


def warnings(kate: Kate) -> list[str]:
    shown = [m.message for m in kate.editor.client.messages if m.type <= types.MessageType.Warning]
    logged = kate.editor.client.log_messages
    return shown + [m.message for m in logged if m.type <= types.MessageType.Warning]


async def test_the_shipped_config_runs_the_demo_with_the_edit_in_kates_buffer(
    open_client, root: Path
) -> None:
    make_demo_workspace(root)
    (root / "NOTES.md").write_text("# notes\n")
    kate = await open_kate(open_client)
    greet = await kate.open("greet.py")  # Kate gives Python documents to agentls
    notes = await kate.open("NOTES.md")
    assert greet is not None and notes is not None
    line = kate.type_line(notes, f"agentls: {REQUEST}")
    (ask,) = await kate.code_actions(notes, line)  # nothing selected: no "about this selection"
    assert ask.title == f"Ask agentls: {REQUEST}"
    await pick(kate.editor, ask)
    saving = asyncio.ensure_future(kate.saving.save_when_asked(greet))

    actions = await actions_once(kate, notes, line, "agentls: Apply")
    assert [a.title for a in actions] == [  # while it waits: its answers only, no new ask
        "agentls: Apply: edit greet.py (+4 −0 lines)",
        "agentls: Reject: edit greet.py (+4 −0 lines)",
        "agentls: Cancel the run",
    ]
    await pick(kate.editor, titled(actions, "agentls: Apply"))
    (edit,) = kate.editor.edits  # into Kate's buffer, within 2 s of the person's command
    (change,) = edit.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.uri == greet
    assert kate.editor.text(greet) == DEMO_EDITED  # in the buffer: Ctrl+Z takes it back
    await saving  # asked in one line, saved with Ctrl+S

    actions = await actions_once(kate, greet, 0, "agentls: Allow once")  # from greet.py too
    assert not any(a.title.startswith("Ask agentls") for a in actions)
    await pick(kate.editor, titled(actions, "agentls: Allow once"))
    finished = await kate.editor.wait_finished()
    assert finished["terminalReason"] == "completed", finished
    assert (root / "greet.py").read_text() == DEMO_EDITED
    assert not kate.saving.modified_on_disk(greet)  # no "modified on disk" bar
    assert "HELLO, WORLD!" in (await kate.editor.wait_for_event("tool_finished"))["line"]
    assert [a.title for a in await kate.code_actions(notes, line)] == [f"Ask agentls: {REQUEST}"]


async def test_the_symbol_outline_is_answered_quietly(open_client, root: Path) -> None:
    (root / "greet.py").write_text("def greet(name):\n    return name\n")
    (root / "NOTES.md").write_text("# notes\n")
    kate = await open_kate(open_client)
    for rel in ("greet.py", "NOTES.md"):
        uri = await kate.open(rel)
        assert uri is not None and kate.outlines[uri] == []
    await kate.code_actions(uri, 0)  # a round trip after the answers: any warning is in
    assert warnings(kate) == []
    advertised = kate.editor.initialized.capabilities  # type: ignore[attr-defined]
    assert advertised.document_symbol_provider is None  # not a symbol provider to others


async def test_ask_about_this_selection_only_with_a_selection(open_client, root: Path) -> None:
    (root / "greet.py").write_text("def greet(name):\n    return name\n")
    kate = await open_kate(open_client)
    uri = await kate.open("greet.py")
    assert uri is not None
    assert await kate.code_actions(uri, 1) == []  # the cursor's line, nothing selected
    selected = types.Range(types.Position(0, 4), types.Position(1, 15))
    (about,) = await kate.code_actions(uri, 0, selection=selected)
    assert about.title == "Ask agentls about this selection"
    assert about.command is not None and about.command.arguments
    assert about.command.arguments[0]["range"]["end"] == {"line": 1, "character": 15}


def test_the_shipped_config_gives_python_to_agentls_and_notes_too() -> None:
    servers = kate_shape.servers_of(shipped_config())
    assert kate_shape.server_for(servers, "Python") == ("python", "agentls")
    assert kate_shape.server_for(servers, "Markdown") == ("agentls", "agentls")
    assert kate_shape.server_for(servers, "Normal") == ("agentls", "agentls")
    assert kate_shape.server_for(servers, "Rust") == ("rust", "rust")  # its own server still


async def test_a_long_model_error_is_cut_at_a_word_and_logged_whole(
    open_client, root: Path, tmp_path: Path
) -> None:
    detail = "the service said: " + " ".join(f"word{n}" for n in range(120)) + " END"
    script = tmp_path / "fails.json"
    script.write_text(json.dumps({"turns": [{"error": {"message": detail, "kind": "api"}}]}))
    (root / "NOTES.md").write_text("# notes\n")
    kate = await open_kate(open_client, model=f"scripted:{script}")
    notes = await kate.open("NOTES.md")
    await kate.editor.ask("go", uri=notes)
    assert (await kate.editor.wait_finished())["terminalReason"] == "model_error"
    shown = await kate.editor.wait_for_message("agentls: model_error:")
    assert len(shown) <= 400 and shown.endswith("…")
    assert f"{shown[:-1].split()[-1]} " in detail  # cut after a whole word
    logged = [m.message for m in kate.editor.client.log_messages if detail in m.message]
    assert logged  # the whole text, in the server's log (Kate's Output pane)


async def test_an_ask_from_a_code_action_is_logged_and_labelled_by_its_words(
    open_client, fake: FakeAnthropic, root: Path
) -> None:
    make_demo_workspace(root)
    fake.add(turn("It greets by name."))
    kate = await open_kate(open_client, model="anthropic:claude-sonnet-4-5")
    greet = await kate.open("greet.py")
    assert greet is not None
    line = kate.type_line(greet, "# agentls: explain greet()")
    (ask,) = await kate.code_actions(greet, line)
    await pick(kate.editor, ask)
    await kate.editor.wait_for_event("run_finished")
    first = kate.editor.events[0]
    assert (first["kind"], first["request"]) == ("run_started", "explain greet()")
    logged = [m.message for m in kate.editor.client.log_messages]
    assert any(m.endswith("asked: explain greet()") for m in logged), logged
    (listed,) = await kate.editor.command("agentls.sessions")
    assert listed["firstPrompt"] == "explain greet()"  # not where it was written
