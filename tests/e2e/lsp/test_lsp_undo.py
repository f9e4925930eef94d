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
    editor.save_edits = False  # the edit stays in the unsaved buffer
    editor.answers = ["Apply"]
    fake.add(
        turn(tool_calls=[("toolu_1", "edit_file",
                          {"path": "a.py", "old_text": "A = 1", "new_text": "A = 2"})]),
        turn("Changed."),
    )  # fmt: skip
    result = await editor.ask("change A", wait=True)
    assert editor.text(uri) == "A = 2\n" and (root / "a.py").read_text() == "A = 1\n"
    edits_before = len(editor.edits)

    undone = await editor.command("agentls.undo", {"sessionId": result["sessionId"]})
    assert undone == {"turn": 1, "restored": ["a.py"], "removed": [], "conflicts": [],
                      "done": True}  # fmt: skip
    assert editor.text(uri) == "A = 1\n"
    (undo_edit,) = editor.edits[edits_before:]
    assert undo_edit.label == "agentls: undo"
    (change,) = undo_edit.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 2
    await editor.wait_for_message("undid turn 1")
    with pytest.raises(JsonRpcInvalidParams, match="undone already"):
        await editor.command("agentls.undo", {"sessionId": result["sessionId"]})
