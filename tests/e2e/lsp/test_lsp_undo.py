"""agentls.undo in the editor: open buffers go back through workspace/applyEdit."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, turn


async def test_undo_restores_an_open_buffer_through_the_editor(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.py").write_text("A = 1\n")
    uri = editor.open("a.py")
    editor.save_edits = False  # the editor does not save: the server puts the edit on disk
    editor.answers = ["Apply"]
    fake.add(
        turn(tool_calls=[("toolu_1", "edit_file",
                          {"path": "a.py", "old_text": "A = 1", "new_text": "A = 2"})]),
        turn("Changed."),
    )  # fmt: skip
    result = await editor.ask("change A", wait=True)
    assert editor.text(uri) == "A = 2\n" and (root / "a.py").read_text() == "A = 2\n"
    edits_before = len(editor.edits)

    undone = await editor.command("agentls.undo", {"sessionId": result["sessionId"]})
    assert undone == {"turn": 1, "turns": [1], "ask": True, "runId": result["runId"],
                      "restored": ["a.py"], "removed": [], "conflicts": [], "refused": [],
                      "done": True}  # fmt: skip
    assert editor.text(uri) == "A = 1\n" and (root / "a.py").read_text() == "A = 1\n"
    (undo_edit,) = editor.edits[edits_before:]
    assert undo_edit.label == "agentls: undo"
    (change,) = undo_edit.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 2
    await editor.wait_for_message("undid the ask “change A” (turn 1)")
    with pytest.raises(JsonRpcInvalidParams, match="undone already"):
        await editor.command("agentls.undo", {"sessionId": result["sessionId"]})


async def test_undo_of_a_two_turn_ask_then_one_turn_by_number(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.py").write_text("A = 1\n")
    editor.answers = ["Apply", "Allow once"]
    fake.add(
        turn(tool_calls=[("toolu_1", "edit_file",
                          {"path": "a.py", "old_text": "A = 1", "new_text": "A = 2"})]),
        turn(tool_calls=[("toolu_2", "run_command", {"command": "cp a.py copy.py"})]),
        turn("Copied."),
    )  # fmt: skip
    result = await editor.ask("change and copy", wait=True)
    assert result["terminalReason"] == "completed"
    assert (root / "copy.py").read_text() == "A = 2\n"
    session = result["sessionId"]

    with pytest.raises(JsonRpcInvalidParams, match="no turn 7"):
        await editor.command("agentls.undo", {"sessionId": session, "turn": 7})
    undone = await editor.command("agentls.undo", {"sessionId": session})
    assert undone["turns"] == [1, 2] and undone["done"]
    assert undone["restored"] == ["a.py"] and undone["removed"] == ["copy.py"]
    assert (root / "a.py").read_text() == "A = 1\n" and not (root / "copy.py").exists()
    await editor.wait_for_message("undid the ask “change and copy” (turns 1 and 2)")


async def test_undo_across_a_link_out_restores_the_rest_and_says_what_it_refused(
    editor: Editor, fake: FakeAnthropic, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.py").write_text("OUTSIDE = 1\n")
    (root / "sub").mkdir()
    (root / "sub" / "a.py").write_text("S = 1\n")
    (root / "top.py").write_text("T = 1\n")
    editor.answers = ["Apply", "Apply", "Allow once"]
    fake.add(
        turn(tool_calls=[("toolu_1", "edit_file",
                          {"path": "sub/a.py", "old_text": "S = 1", "new_text": "S = 2"}),
                         ("toolu_2", "edit_file",
                          {"path": "top.py", "old_text": "T = 1", "new_text": "T = 2"})]),
        turn(tool_calls=[("toolu_3", "run_command",
                          {"command": f"rm -rf sub && ln -s {outside} sub"})]),
        turn("Linked."),
    )  # fmt: skip
    result = await editor.ask("edit, then link sub out", wait=True)
    assert result["terminalReason"] == "completed" and (root / "sub").is_symlink()

    undone = await editor.command("agentls.undo", {"sessionId": result["sessionId"]})
    assert undone["restored"] == ["top.py"] and undone["refused"] == ["sub", "sub/a.py"]
    assert undone["done"] and undone["conflicts"] == []
    assert (root / "top.py").read_text() == "T = 1\n"
    assert [p.name for p in outside.iterdir()] == ["a.py"]
    assert (outside / "a.py").read_text() == "OUTSIDE = 1\n"
    await editor.wait_for_message("undid only part of the ask “edit, then link sub out”")
    await editor.wait_for_message("refused sub, sub/a.py: a link now leads out of the workspace")
