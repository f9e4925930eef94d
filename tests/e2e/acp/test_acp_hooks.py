"""Hooks in `agentls acp` (the official Python SDK as the client, real shell scripts as
hooks): a PreToolUse hook keeps a write from happening, and what a failing hook tells the
person reaches the client as the agent's message."""

from __future__ import annotations

import json
import os
from pathlib import Path

from acp import text_block

from tests.e2e.acp.client import RecordingClient, agent
from tests.helpers import write_script


async def test_hooks_hold_and_speak_in_an_acp_session(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    guard = tmp_path / "guard.sh"
    guard.write_text("#!/bin/sh\necho 'no new files today' >&2\nexit 2\n")
    broken = tmp_path / "broken.sh"
    broken.write_text("#!/bin/sh\necho 'lint: config missing' >&2\nexit 3\n")
    for script in (guard, broken):
        script.chmod(0o755)
    settings = Path(os.environ["XDG_CONFIG_HOME"]) / "agentls" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": {
        "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": str(guard)}]}],
        "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command",
                                                       "command": str(broken)}]}],
    }}))  # fmt: skip
    (workspace / "notes.txt").write_text("notes\n")
    write = {"name": "write_file", "input": {"path": "new.txt", "content": "x\n"}}
    read = {"name": "read_file", "input": {"path": "notes.txt"}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [write, read]}, {"text": "Done."}])
    client = RecordingClient(answers=["allow_once"] * 4)
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("write it")])
    assert not (workspace / "new.txt").exists()
    assert client.permissions == []  # the hook denied it before anyone was asked
    said = client.text()
    assert f"agentls: PostToolUse hook `{broken}`: exited with 3: lint: config missing" in said
    failed = [u for u in client.updates if u["sessionUpdate"] == "tool_call_update"
              and u.get("status") == "failed"]  # fmt: skip
    assert any("no new files today" in json.dumps(u) for u in failed)
