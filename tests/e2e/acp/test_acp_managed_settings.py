"""`agentls acp` under the machine's managed settings: said first, and held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp import RequestError, text_block

from tests.e2e.acp.client import RecordingClient, agent
from tests.helpers import write_script


async def test_the_session_says_the_policy_first_and_bypass_mode_is_refused(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    policy = tmp_path / "managed-settings.json"
    policy.write_text(json.dumps({"permissions": {"deny": ["write_file(blocked.txt)"],
                                                  "disableBypassMode": True}}))  # fmt: skip
    write = {"name": "write_file", "input": {"path": "blocked.txt", "content": "x\n"}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [write]}, {"text": "Done."}])
    client = RecordingClient(answers=["allow_once"])
    env = {"AGENTLS_MANAGED_SETTINGS": str(policy)}
    async with agent(client, model, workspace, env=env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        first = await client.wait_for(
            lambda: next(
                (u for u in client.updates if u["sessionUpdate"] == "agent_message_chunk"), None
            )
        )
        assert "managed settings in force" in first["content"]["text"]
        assert str(policy) in first["content"]["text"]
        with pytest.raises(RequestError, match="bypass mode is turned off"):
            await conn.set_session_mode(mode_id="bypass", session_id=sid)
        await conn.prompt(session_id=sid, prompt=[text_block("/mode bypass")])
        await conn.prompt(session_id=sid, prompt=[text_block("write blocked.txt")])
    assert "bypass mode is turned off by the managed settings" in client.text()
    assert not (workspace / "blocked.txt").exists()  # the managed deny held, asked or not
    modes = [u for u in client.updates if u["sessionUpdate"] == "current_mode_update"]
    assert modes == []
