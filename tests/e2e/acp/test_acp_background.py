"""Background processes in an ACP session: a background command shows as its run_command
call, and its exit (between prompts too) as a completed tool call of its own; a process
still running ends with the agent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import text_block

from tests.e2e.acp.client import RecordingClient, agent
from tests.helpers import write_script
from tests.processes import processes_naming

WAITS = "while [ ! -e go ]; do sleep 0.02; done; echo done"


def ended(client: RecordingClient) -> list[dict[str, Any]]:
    return [
        u for u in client.updates
        if u["sessionUpdate"] == "tool_call" and u["title"].startswith("Background process")
    ]  # fmt: skip


async def test_a_background_process_ending_after_its_prompt_shows_as_a_tool_call(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    start = {"name": "run_command", "input": {"command": WAITS, "background": True}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [start]}, {"text": "Started."}])
    client = RecordingClient(answers=["allow_once"])
    async with agent(client, model, workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        answer = await conn.prompt(session_id=sid, prompt=[text_block("start it")])
        assert answer.stop_reason == "end_turn"
        (call,) = [u for u in client.updates if u["sessionUpdate"] == "tool_call"]
        result = client.tool_updates(call["toolCallId"])[-1]
        assert "p1 started in the background" in result["content"][0]["content"]["text"]
        assert ended(client) == []
        (workspace / "go").write_text("")  # the process ends by itself, between prompts
        (update,) = await client.wait_for(lambda: ended(client))
    assert update["title"] == "Background process p1 exited (exit code 0)"
    assert update["status"] == "completed" and update["kind"] == "execute"
    assert update["content"][0]["content"]["text"] == f"$ {WAITS}"


async def test_a_process_still_running_ends_with_the_agent(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = f"sleep 31{len(str(workspace))}7"  # seconds no other process sleeps
    start = {"name": "run_command", "input": {"command": marker, "background": True}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [start]}, {"text": "Started."}])
    client = RecordingClient(answers=["allow_once"])
    async with agent(client, model, workspace) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("start it")])
        assert processes_naming(marker)
    deadline = asyncio.get_running_loop().time() + 30
    while processes_naming(marker) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)  # the kernel takes the session's sandbox down
    assert processes_naming(marker) == []
