"""`agentls acp` driven by the Python SDK's client side over stdio, with the scripted model."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.e2e.acp.client import RecordingClient, agent, write_script


async def test_a_prompt_streams_text(isolated_state: Path, workspace: Path, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.json", [{"text": "Hello from the script."}])
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    assert answer.stop_reason == "end_turn"
    assert client.text() == "Hello from the script."
    assert "usage_update" in client.kinds()
