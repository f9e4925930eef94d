"""Start-up loads only what answering `initialize` (or parsing the command line) needs:
the conversation stack, providers, SDKs and MCP load with the first ask."""

from __future__ import annotations

import json
import subprocess
import sys

# Modules whose import before the first ask would make every start slower.
LATER = ("anthropic", "openai", "httpx", "bashlex", "mcp", "watchfiles", "agentls.conversation",
         "agentls.loop", "agentls.mcp", "agentls.providers", "agentls.permissions.shell",
         "agentls.context", "agentls.runtime", "agentls.tools", "agentls.checkpoints")  # fmt: skip


def loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    modules: list[str] = json.loads(out)
    return modules


def later(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in LATER)]


def test_the_language_server_is_built_without_the_core() -> None:
    assert later(loaded_after("from agentls.lsp.main import build_server\nbuild_server()")) == []


def test_the_command_line_parses_without_the_core() -> None:
    code = "from agentls.cli.main import build_parser\nbuild_parser().parse_args(['sessions'])"
    assert later(loaded_after(code)) == []
