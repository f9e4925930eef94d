"""`/memory` in an ACP session: add, list and forget without the model, on the same store
`agentls memory` uses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from acp import text_block

from tests.e2e.acp.client import RecordingClient, agent
from tests.helpers import write_script


async def test_memory_add_list_and_forget(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    model = write_script(tmp_path / "s.json", [{"text": "unused"}])
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        added = await conn.prompt(session_id=sid, prompt=[text_block("/memory add Use pnpm.")])
        assert added.stop_reason == "end_turn"
        said = client.text()
    assert "remembered m-" in said and "explicit_user_rule" in said and "Use pnpm." in said
    listed = subprocess.run(
        [sys.executable, "-m", "agentls", "memory", "list", "--json"],
        cwd=workspace, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    (memory,) = json.loads(listed.stdout)
    assert memory["content"] == "Use pnpm." and memory["scope"] == "project"
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("/memory forget m-nope")])
        await conn.prompt(session_id=sid, prompt=[text_block(f"/memory forget {memory['id']}")])
    assert "memory unchanged: no memory m-nope" in client.text()
    assert f"forgot {memory['id']}" in client.text() and "no memories" in client.text()


async def test_the_first_message_says_which_instruction_files_were_used(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Run pnpm test.\n")
    model = write_script(tmp_path / "s.json", [{"text": "Hello."}])
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("hi")])
    assert client.text() == "[instructions: AGENTS.md (15 B)]\n\nHello."
