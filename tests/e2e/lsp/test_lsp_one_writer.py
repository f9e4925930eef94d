"""One writer per session across faces: while `agentls ask` runs a session, the language
server refuses to run it too, names the holder, and takes over cleanly afterwards."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import script


def cli(root: Path, state: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENTLS_"))}
    return subprocess.Popen(
        [sys.executable, "-m", "agentls", "ask", *args], cwd=root,
        env={**env, "AGENTLS_STATE_DIR": str(state), "AGENTLS_WARM": "0"}, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


async def appears(path: Path, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not path.exists():
        assert loop.time() < deadline, f"{path} did not appear"
        await asyncio.sleep(0.02)


async def test_the_server_refuses_a_session_the_cli_is_running(
    editor: Editor, fake: FakeAnthropic, root: Path, isolated_state: Path, tmp_path: Path
) -> None:
    hello = script(tmp_path, [{"text": "Hello."}], "hello.json")
    first = cli(root, isolated_state, "start", "--json", "--model", hello)
    out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    session = json.loads(out)["sessionId"]
    waiting = "touch started; while [ ! -e go ]; do sleep 0.02; done"
    hold = script(tmp_path, [
        {"toolCalls": [{"name": "run_command", "input": {"command": waiting}}]},
        {"text": "Held."},
    ], "hold.json")  # fmt: skip
    holder = cli(root, isolated_state, "hold", "--yes", "--session", session, "--model", hold)
    try:
        await appears(root / "started")
        with pytest.raises(JsonRpcInvalidParams) as refused:
            await editor.ask("meanwhile", sessionId=session)
        assert f"is running elsewhere (`agentls ask`, pid {holder.pid}" in str(refused.value)
        (root / "go").touch()
        assert holder.wait(timeout=60) == 0
    finally:
        holder.kill()
    fake.add(turn("After."))
    result = await editor.ask("after", sessionId=session, wait=True)
    assert result["terminalReason"] == "completed"
    lines = (isolated_state / "sessions" / f"{session}.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    prompts = [e["prompt"] for e in events if e["kind"] == "run_started"]
    assert prompts[0] == "start" and prompts[1] == "hold" and prompts[2].startswith("after")
    # The server's run saw the history the command line wrote.
    assert len(fake.requests[0].body["messages"]) == 7
