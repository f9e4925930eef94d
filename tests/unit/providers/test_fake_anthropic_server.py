"""The fake server as a standalone process, as the CLI end-to-end tests use it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agentls.contracts.messages import ToolUseBlock
from agentls.providers.anthropic import AnthropicProvider
from tests.unit.providers.helpers import collect, done, request

ROOT = Path(__file__).resolve().parents[3]


async def test_standalone_mode_serves_a_script_and_records_requests(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"kind": "status", "code": 529},
                {"kind": "turn", "tool_calls": [["toolu_1", "read_file", {"path": "a.py"}]]},
            ]
        )
    )
    port_file, record = tmp_path / "port", tmp_path / "requests.jsonl"
    command = [sys.executable, "-m", "tests.fakes.anthropic_server", "--script", str(script)]
    command += ["--port-file", str(port_file), "--record", str(record)]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) as server:
        try:
            assert server.stdout is not None
            base_url = server.stdout.readline().strip()  # printed once listening
            assert base_url == f"http://127.0.0.1:{port_file.read_text()}"
            provider = AnthropicProvider(
                "claude-test", api_key="k", base_url=base_url, max_retries=1
            )
            final = done(await collect(provider, request()))
            assert final.message.content == (
                ToolUseBlock("toolu_1", "read_file", {"path": "a.py"}),
            )
        finally:
            server.terminate()
        assert server.wait(timeout=10) == 0
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [line["path"] for line in lines] == ["/v1/messages"] * 2
    assert lines[1]["body"]["model"] == "claude-test"
