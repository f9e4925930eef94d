"""rename in `agentls serve` through the real basedpyright: one review, one applyEdit
for every file, the disk as for any accepted edit, and Undo last ask puts all back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.intelligence.test_navigation import MORE, SHAPES, USE
from tests.e2e.lsp.editor import Editor, capabilities, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn

RENAME = {"path": "shapes.py", "line": 6, "symbol": "total", "new_name": "sum_areas"}
RENAMED = {
    "shapes.py": SHAPES.replace("def total(", "def sum_areas("),
    "use.py": USE.replace("total", "sum_areas"),
    "more.py": MORE.replace("total", "sum_areas"),
}
ORIGINAL = {"shapes.py": SHAPES, "use.py": USE, "more.py": MORE}


@pytest.fixture
async def start(
    workspace: Path, fake: FakeAnthropic, isolated_state: Path, pyright_path: str
) -> AsyncIterator[Any]:
    (workspace / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    for name, text in ORIGINAL.items():
        (workspace / name).write_text(text)
    env = {
        "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url,
        "AGENTLS_STATE_DIR": str(isolated_state), "PATH": pyright_path,
    }  # fmt: skip
    options = {"model": "anthropic:claude-sonnet-4-5", "languageServers": {"ruff": None}}
    started: list[Editor] = []

    async def factory(*, saves_edits: bool) -> Editor:
        caps = capabilities(saves_edits=saves_edits, show_document=False)
        editor = await start_editor(workspace, env, caps=caps, init_options=options)
        editor.save_edits = saves_edits
        started.append(editor)
        return editor

    yield factory
    for editor in started:
        await editor.client.shutdown_session()
        await editor.client.stop()


def on_disk(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text() for name in ORIGINAL}


def result_text(fake: FakeAnthropic, index: int) -> str:
    last = fake.requests[index].body["messages"][-1]
    return "\n".join(str(b.get("content", "")) for b in last["content"])


async def test_a_rename_across_three_files_is_one_review_and_one_undo(
    start: Any, fake: FakeAnthropic, workspace: Path
) -> None:
    """With an agentls script (the client saves what it applied): every file, open
    or not, goes through the one workspace/applyEdit."""
    editor: Editor = await start(saves_edits=True)
    shapes, use = editor.open("shapes.py"), editor.open("use.py")  # more.py is not open
    editor.answers = ["Apply"]
    fake.add(turn(tool_calls=[("toolu_r", "rename", RENAME)]), turn("Renamed."))
    result = await editor.ask("rename total", wait=True)
    assert result["terminalReason"] == "completed", result

    (review,) = editor.prompts  # one review, every file's diff in it
    assert "rename total -> sum_areas in 3 file(s)" in review.message
    for name in ORIGINAL:
        assert f"+++ proposed/{name}" in review.message
    (applied,) = editor.edits  # one applyEdit with every file
    uris = [c.text_document.uri for c in applied.edit.document_changes or []
            if isinstance(c, types.TextDocumentEdit)]  # fmt: skip
    assert sorted(Path(u).name for u in uris) == ["more.py", "shapes.py", "use.py"]
    assert editor.text(shapes) == RENAMED["shapes.py"] and editor.text(use) == RENAMED["use.py"]
    assert on_disk(workspace) == RENAMED
    told = result_text(fake, 1)
    assert "Renamed total to sum_areas in 3 file(s)" in told

    undone = await editor.command("agentls.undo", {"sessionId": result["sessionId"]})
    assert undone["done"] is True and sorted(undone["restored"]) == sorted(ORIGINAL), undone
    assert editor.text(shapes) == SHAPES and editor.text(use) == USE
    assert on_disk(workspace) == ORIGINAL


async def test_a_plain_client_gets_the_open_file_and_the_disk_the_others(
    start: Any, fake: FakeAnthropic, workspace: Path
) -> None:
    """A plain client: only the open buffer gets the applyEdit; the closed files are
    written after the review; the open one reaches the disk with the person's save."""
    editor: Editor = await start(saves_edits=False)
    shapes = editor.open("shapes.py")
    editor.answers = ["Apply"]
    fake.add(turn(tool_calls=[("toolu_r", "rename", RENAME)]), turn("Renamed."))
    await editor.ask("rename total")
    said = await editor.wait_for_message("save it to go on", timeout=60)
    assert said.startswith("agentls: shapes.py holds the accepted edit")
    assert on_disk(workspace) == {**RENAMED, "shapes.py": SHAPES}  # not behind the editor
    (workspace / "shapes.py").write_text(editor.text(shapes))  # the person saves
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=shapes))
    )
    result = await editor.wait_finished(timeout=60)
    assert result["terminalReason"] == "completed", result
    assert len(editor.prompts) == 1
    (applied,) = editor.edits
    assert [c.text_document.uri for c in applied.edit.document_changes or []] == [shapes]
    assert on_disk(workspace) == RENAMED


async def test_a_rejected_rename_changes_no_file(
    start: Any, fake: FakeAnthropic, workspace: Path
) -> None:
    editor: Editor = await start(saves_edits=False)
    editor.open("shapes.py")
    editor.answers = ["Reject"]
    fake.add(turn(tool_calls=[("toolu_r", "rename", RENAME)]), turn("Left alone."))
    result = await editor.ask("rename total", wait=True)
    assert result["terminalReason"] == "completed", result
    assert editor.edits == [] and on_disk(workspace) == ORIGINAL
    assert "the rename was rejected" in result_text(fake, 1)
    assert "nothing was changed" in result_text(fake, 1)
