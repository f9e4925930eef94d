"""`agentls acp` on the wire: stdout carries only JSON-RPC, and malformed messages are
answered with errors while the agent keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def exchange(workspace: Path, lines: list[str], ids: set[int], *model: str) -> list[dict[str, Any]]:
    """Send the lines, read answers until every id in ``ids`` has one, then close stdin."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agentls", "acp", *model],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        cwd=workspace,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(line + "\n" for line in lines))
    process.stdin.flush()
    answers: list[dict[str, Any]] = []
    try:
        while not ids <= {a.get("id") for a in answers}:
            line = process.stdout.readline()
            assert line, f"stdout ended; answers so far: {answers}"
            answers.append(json.loads(line))  # every line on stdout is JSON-RPC
    finally:
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    return answers


def request(id_: int, method: str, params: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})


def test_malformed_messages_are_answered_and_the_agent_keeps_serving(
    isolated_state: Path, workspace: Path
) -> None:
    init = {"protocolVersion": 1, "clientCapabilities": {}}
    answers = exchange(workspace, [
        request(1, "initialize", init),
        "{this is not json",
        "[1, 2, 3]",
        json.dumps({"jsonrpc": "2.0", "params": {}}),
        json.dumps({"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize", "params": init}),
        request(2, "no/such/method", {}),
        request(3, "session/new", {"cwd": 42}),
        request(4, "session/new", {"cwd": "relative/dir", "mcpServers": []}),
        request(5, "session/prompt", {"sessionId": "nope", "prompt": []}),
        request(6, "session/new", {"cwd": str(workspace), "mcpServers": []}),
    ], {1, 2, 3, 4, 5, 6}, "--model", "scripted:demo")  # fmt: skip
    by_id = {a.get("id"): a for a in answers if "id" in a and ("result" in a or "error" in a)}
    assert by_id[1]["result"]["protocolVersion"] == 1
    caps = by_id[1]["result"]["agentCapabilities"]
    assert caps["loadSession"] is True and caps["promptCapabilities"]["embeddedContext"] is True
    errors = [a["error"]["code"] for a in answers if a.get("id") is None and "error" in a]
    assert errors == [-32700] + [-32600] * 3  # not JSON; not an object; no method; a bad id
    assert by_id[2]["error"]["code"] == -32601
    assert by_id[3]["error"]["code"] == -32602
    assert "not an absolute folder" in by_id[4]["error"]["message"]
    assert by_id[5]["error"]["message"].startswith("agentls: no session 'nope' open here")
    assert by_id[6]["result"]["sessionId"]  # still serving


def test_a_missing_api_key_asks_for_authentication(isolated_state: Path, workspace: Path) -> None:
    lines = [
        request(1, "initialize", {"protocolVersion": 1}),
        request(2, "session/new", {"cwd": str(workspace), "mcpServers": []}),
        request(3, "authenticate", {"methodId": "agentls-api-key"}),
    ]
    # stdin ends right after the last line: the requests already read are still answered.
    process = subprocess.run(
        [sys.executable, "-m", "agentls", "acp"], input="".join(f"{line}\n" for line in lines),
        capture_output=True, text=True, cwd=workspace, timeout=60,
    )  # fmt: skip
    answers = {a["id"]: a for a in map(json.loads, process.stdout.splitlines())}
    assert process.returncode == 0 and set(answers) == {1, 2, 3}
    (login,) = answers[1]["result"]["authMethods"]  # typed: the client can ask for the key
    assert login["id"] == "agentls-api-key" and login["type"] == "env_var"
    assert [v["name"] for v in login["vars"]] == ["ANTHROPIC_API_KEY"]
    assert answers[2]["error"]["code"] == -32000
    assert "ANTHROPIC_API_KEY" in answers[2]["error"]["message"]
    assert answers[3]["error"]["code"] == -32000
