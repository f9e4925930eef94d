"""Start-up loads only what answering `initialize` (or parsing the command line) needs:
the conversation stack, providers, SDKs and MCP load with the first ask."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


# A whole run, in a fresh process: what telemetry would load (the SDK, agentls's exporters).
RUN = """
import asyncio
from pathlib import Path
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace
(Path({root!r}) / "ws").mkdir()
manager = ConversationManager(SessionStore(Path({root!r}) / "state"))
settings = load_settings({{"model": "scripted:demo", **{more!r}}})
conversation = manager.open(LocalWorkspace(Path({root!r}) / "ws"), settings)
asyncio.run(conversation.ask("hello"))
manager.close()
"""


def telemetry_modules(modules: list[str]) -> list[str]:
    return [m for m in modules if m.startswith(("opentelemetry", "agentls.telemetry."))
            and m != "agentls.telemetry.config"]  # fmt: skip


def test_a_run_without_telemetry_loads_none_of_it(tmp_path: Path) -> None:
    assert telemetry_modules(loaded_after(RUN.format(root=str(tmp_path), more={}))) == []


def test_telemetry_loads_when_enabled(tmp_path: Path) -> None:
    more = {"telemetry": {"enabled": True, "endpoint": "http://127.0.0.1:9"}}
    loaded = telemetry_modules(loaded_after(RUN.format(root=str(tmp_path), more=more)))
    assert "agentls.telemetry.watch" in loaded and "opentelemetry.sdk.trace" in loaded
