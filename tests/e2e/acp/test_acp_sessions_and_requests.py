"""What a loaded session keeps, and what a permission request says, as the Python SDK's
client sees it: the mode survives session/load in a new agent process (and the CLI's
--session), a request names its call (title, kind, locations) while the call is still
``pending``, a request the client fails to answer cancels the prompt, and the no-sandbox
note comes once per session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from tests.e2e.acp.client import RecordingClient, agent, session_events
from tests.e2e.acp.test_acp_python_client import read_then_edit
from tests.gate.test_sandbox_missing import path_without_bwrap
from tests.helpers import write_script


async def plan_session(workspace: Path, model: str) -> str:
    """A session set to plan in one agent process, which then exits."""
    async with agent(RecordingClient(), model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
    return session.session_id


async def test_a_session_set_to_plan_is_in_plan_when_a_new_agent_loads_it(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    refused = {"text": "Not in plan mode.", "expect": {"lastToolResultContains": "plan mode"}}
    model = write_script(tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", refused))
    session_id = await plan_session(workspace, model)
    client = RecordingClient(answers=["allow_once"])
    async with agent(client, model, workspace) as (conn, _):
        loaded = await conn.load_session(cwd=str(workspace), session_id=session_id, mcp_servers=[])
        answer = await conn.prompt(session_id=session_id, prompt=[text_block("edit a.py")])
    assert loaded.modes is not None and loaded.modes.current_mode_id == "plan"
    (mode,) = [o for o in loaded.config_options or [] if o.id == "mode"]
    assert mode.current_value == "plan"
    assert answer.stop_reason == "end_turn", client.text()
    assert client.text() == "Not in plan mode."
    assert target.read_text() == "x = 1\n" and client.permissions == [] and client.writes == []
    started = [e["mode"] for e in session_events(isolated_state) if e["kind"] == "run_started"]
    assert started == ["plan"]


async def test_the_cli_keeps_the_mode_of_a_session_and_a_named_mode_wins(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    session_id = await plan_session(workspace, write_script(tmp_path / "none.json", []))
    after = {"text": "Tried."}
    model = write_script(tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", after))

    def ask(*more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agentls", "ask", "edit a.py", "--session", session_id,
             "--model", model, "--yes", *more],
            cwd=workspace, capture_output=True, text=True, timeout=60,
        )  # fmt: skip

    kept = ask()
    assert kept.returncode == 0, kept.stderr
    assert target.read_text() == "x = 1\n"  # plan mode: the edit was never run
    named = ask("--mode", "accept-edits")
    assert named.returncode == 0, named.stderr
    assert target.read_text() == "x = 2\n"
    logged = [(e["kind"], e.get("mode")) for e in session_events(isolated_state)
              if e["kind"] in ("mode_changed", "run_started")]  # fmt: skip
    assert logged == [
        ("mode_changed", "plan"),
        ("run_started", "plan"),
        ("mode_changed", "accept-edits"),
        ("run_started", "accept-edits"),
    ]


def statuses_around(client: RecordingClient, asked: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The statuses the client saw for the asked call, before and after the question."""
    call_id = asked["toolCall"]["toolCallId"]
    seen = [
        (index, u["status"]) for index, u in enumerate(client.updates)
        if u["sessionUpdate"] in ("tool_call", "tool_call_update")
        and u["toolCallId"] == call_id and "status" in u
    ]  # fmt: skip
    cut = asked["updatesBefore"]
    return [s for i, s in seen if i < cut], [s for i, s in seen if i >= cut]


async def test_requests_name_their_call_and_it_is_pending_until_answered(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "greet.py"
    target.write_text("x = 1\n")
    command = {"name": "run_command", "input": {"command": "echo checked"}}
    turns = [*read_then_edit("greet.py", "x = 1", "x = 2", {"toolCalls": [command]}),
             {"text": "Done.", "expect": {"lastToolResultContains": "checked"}}]  # fmt: skip
    client = RecordingClient(answers=["allow_once", "allow_once"])
    model = write_script(tmp_path / "s.json", turns)
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert answer.stop_reason == "end_turn", client.text()
    edit, run = client.permissions
    assert edit["toolCall"]["title"] == "Edit greet.py"
    assert edit["toolCall"]["kind"] == "edit" and edit["toolCall"]["status"] == "pending"
    assert edit["toolCall"]["locations"] == [{"path": str(target)}]
    assert run["toolCall"]["title"] == "echo checked"
    assert run["toolCall"]["kind"] == "execute" and run["toolCall"]["status"] == "pending"
    assert run["toolCall"]["locations"] == [{"path": str(workspace)}]  # where it runs
    for asked in (edit, run):
        before, after = statuses_around(client, asked)
        assert set(before) == {"pending"}, (before, after)
        assert after == ["in_progress", "completed"], (before, after)


async def test_a_request_the_client_fails_to_answer_cancels_the_prompt(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    touch = {"name": "run_command", "input": {"command": "touch ran"}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [touch]}, {"toolCalls": [touch]}])
    client = RecordingClient(answers=["error"])
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("touch")])
        after = await conn.prompt(session_id=session.session_id, prompt=[text_block("/mode")])
    assert answer.stop_reason == "cancelled"
    assert after.stop_reason == "end_turn"  # the session still serves
    assert len(client.permissions) == 1 and not (workspace / "ran").exists()
    logged = session_events(isolated_state)
    (observation,) = [e for e in logged if e["kind"] == "observation"]
    assert "the client failed to answer the permission request" in observation["content"]
    (finished,) = [e for e in logged if e["kind"] == "run_finished"]
    assert finished["result"]["terminalReason"] == "aborted"


async def test_the_no_sandbox_note_comes_once_per_session(
    isolated_state: Path, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path / "bin"))
    echo = [{"name": "run_command", "input": {"command": f"echo {n}"}} for n in range(3)]
    turns = [{"toolCalls": [echo[0]]}, {"toolCalls": [echo[1]]}, {"text": "Twice."},
             {"toolCalls": [echo[2]]}, {"text": "Once more."}]  # fmt: skip
    model = write_script(tmp_path / "s.json", turns)
    first = RecordingClient(answers=["allow_once"] * 2)
    async with agent(first, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("echo twice")])
    outputs = [json.dumps(u) for u in first.updates if u.get("status") == "completed"]
    assert len(outputs) == 2 and ["without a sandbox" in o for o in outputs] == [True, False]
    assert "sandbox" not in first.text()  # not a chat message
    second = RecordingClient(answers=["allow_once"])
    async with agent(second, model, workspace) as (conn, _):
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
        replayed = len(second.updates)
        await conn.prompt(session_id=session.session_id, prompt=[text_block("once more")])
    assert "sandbox" not in second.text()
    shown = [json.dumps(u) for u in second.updates]
    assert sum("without a sandbox" in u for u in shown[:replayed]) == 1  # the history's own
    assert not any("without a sandbox" in u for u in shown[replayed:])
    notices = [e for e in session_events(isolated_state) if e["kind"] == "notice"]
    assert [n["topic"] for n in notices] == ["no_sandbox"]
