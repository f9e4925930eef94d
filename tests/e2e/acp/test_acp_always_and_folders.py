"""`agentls acp` through the Python SDK's client: an "always" answer never widens past
what a rule can say, and a session never opens on the home folder or `/`."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError, text_block

from tests.e2e.acp.client import RecordingClient, agent
from tests.helpers import write_script

UNCOVERABLE = {"name": "run_command", "input": {"command": "python3 -c 'print(1)'"}}
TOUCH = {"name": "run_command", "input": {"command": "touch other"}}


def two_commands() -> list[dict[str, object]]:
    return [{"toolCalls": [UNCOVERABLE]}, {"toolCalls": [TOUCH]}, {"text": "Done."}]


async def test_always_allow_on_a_call_no_rule_covers_allows_it_once(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    client = RecordingClient(answers=["allow_always", "reject_once"])
    model = write_script(tmp_path / "s.json", two_commands())
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert answer.stop_reason == "end_turn", client.text()
    first, second = client.permissions  # the different command was asked about
    assert [o["kind"] for o in first["options"]] == ["allow_once", "reject_once"]
    assert "touch other" in str(second["toolCall"])
    assert not (workspace / "other").exists()


async def test_always_reject_on_a_call_no_rule_covers_rejects_it_once(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    client = RecordingClient(answers=["reject_always", "allow_once"])
    model = write_script(tmp_path / "s.json", two_commands())
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert answer.stop_reason == "end_turn", client.text()
    assert len(client.permissions) == 2  # asked, not rejected by a rule for every command
    assert (workspace / "other").exists()


async def test_always_allow_on_a_control_file_write_allows_that_write_once(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    control = {"name": "write_file", "input": {"path": ".envrc", "content": "export A=1\n"}}
    plain = {"name": "write_file", "input": {"path": "notes.txt", "content": "hello\n"}}
    turns = [{"toolCalls": [control]}, {"toolCalls": [plain]}, {"text": "Done."}]
    client = RecordingClient(answers=["allow_always", "reject_once"])
    model = write_script(tmp_path / "s.json", turns)
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert answer.stop_reason == "end_turn", client.text()
    first, second = client.permissions  # the other file was asked about
    assert [o["kind"] for o in first["options"]] == ["allow_once", "reject_once"]
    assert (workspace / ".envrc").exists() and not (workspace / "notes.txt").exists()
    assert "notes.txt" in str(second["toolCall"])


@pytest.mark.parametrize("folder", ["root", "home"])
async def test_a_session_on_the_home_folder_or_the_filesystem_root_is_refused(
    folder: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    cwd = "/" if folder == "root" else str(home)
    model = write_script(tmp_path / "s.json", [{"toolCalls": [TOUCH]}, {"text": "Done."}])
    client = RecordingClient(answers=["allow_once"])
    async with agent(client, model, workspace, env={"HOME": str(home)}) as (conn, _):
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd=cwd, mcp_servers=[])
        with pytest.raises(RequestError) as refused_load:
            await conn.load_session(cwd=cwd, session_id="20260101-000000-abcdef", mcp_servers=[])
        # A project folder still works, in the same agent.
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    for error in (refused.value, refused_load.value):
        assert error.code == -32602  # invalid params
        assert f"will not work on {cwd}" in str(error)
        assert "Open a project folder" in str(error)
    assert answer.stop_reason == "end_turn"
    assert (workspace / "other").exists()
    assert not (home / "other").exists() and not Path("/other").exists()
