"""A client that sends the home folder (as Kate does) or no root: the agent works in the
open file's project, says so, and refuses when there is no project to narrow to."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.lsp.editor import Editor, capabilities, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / "person"
    project = folder / "code" / "proj"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (project / "src" / "app.py").write_text("A = 1\n")
    (folder / "notes.txt").write_text("a note in the home folder\n")
    return folder


@pytest_asyncio.fixture
async def home_editor(home: Path, model_env: dict[str, str]) -> AsyncIterator[Editor]:
    editor = await start_editor(
        home, {**model_env, "HOME": str(home)},
        init_options={"model": "anthropic:claude-sonnet-4-5"},
    )  # fmt: skip
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


def workspace_of(state: Path, session_id: str) -> str:
    first = (state / "sessions" / f"{session_id}.jsonl").read_text().splitlines()[0]
    return str(json.loads(first)["workspace"])


async def test_a_home_root_narrows_to_the_open_files_project(
    home_editor: Editor, fake: FakeAnthropic, home: Path, isolated_state: Path
) -> None:
    uri = home_editor.open("code/proj/src/app.py")
    fake.add(
        turn(tool_calls=[("toolu_1", "list_files", {})]),
        turn("Listed."),
    )  # fmt: skip
    result = await home_editor.ask("what is here?", uri=uri, wait=True)
    assert result["terminalReason"] == "completed"
    project = home / "code" / "proj"
    assert workspace_of(isolated_state, result["sessionId"]) == str(project)
    note = await home_editor.wait_for_message("your home folder as the root")
    assert f"works in {project} (its pyproject.toml)" in note
    listing = json.dumps(fake.requests[1].body["messages"][-1])  # the list_files result
    assert "pyproject.toml" in listing and "notes.txt" not in listing


async def test_a_home_root_with_no_project_file_is_refused(
    home_editor: Editor, fake: FakeAnthropic, home: Path
) -> None:
    uri = home_editor.open("notes.txt")
    with pytest.raises(JsonRpcInvalidParams, match="will not work on a whole home folder"):
        await home_editor.ask("tidy up", uri=uri, wait=True)
    assert fake.requests == []  # no model call, no session


async def test_no_root_at_all_uses_the_open_files_folder(
    fake: FakeAnthropic, tmp_path: Path, model_env: dict[str, str], isolated_state: Path
) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "script.py").write_text("print(1)\n")
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "agentls", "serve"],
        # Home is just above: the walk up for a project marker stops there, whatever the
        # folders above the test's own hold (a stray /tmp/setup.py would be a project).
        server_env={**os.environ, **model_env, "HOME": str(tmp_path)},
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    editor = Editor(client, loose)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(), root_uri=None,
            initialization_options={"model": "anthropic:claude-sonnet-4-5"},
        )
    )  # fmt: skip
    try:
        uri = editor.open("script.py")
        fake.add(turn("Nothing to do."))
        result = await editor.ask("look", uri=uri, wait=True)
        assert workspace_of(isolated_state, result["sessionId"]) == str(loose)
        note = await editor.wait_for_message("no workspace folder")
        assert "no project marker found" in note
    finally:
        await client.shutdown_session()
        await client.stop()
