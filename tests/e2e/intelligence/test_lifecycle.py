"""Servers start on first need, are shared by a workspace's sessions, and stop with the last."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.intelligence.languages import Languages
from agentls.workspace.local import LocalWorkspace

FAKE_SERVERS = Path(__file__).parent / "fake_servers.py"
OK_SERVER = LanguageServerConfig(
    command=sys.executable, args=[str(FAKE_SERVERS), "ok"], file_patterns=["*.foo"]
)
ONLY_OK: dict[str, LanguageServerConfig | None] = {
    "basedpyright": None, "pyright": None, "ruff": None, "typescript": None, "gopls": None,
    "rust-analyzer": None, "ok": OK_SERVER,
}  # fmt: skip


async def test_started_on_first_need_shared_and_stopped_with_the_last_session(
    workspace: Path,
) -> None:
    (workspace / "a.foo").write_text("hello\n")
    local = LocalWorkspace(workspace)
    languages = Languages()
    hub = languages.hub
    first = languages.attach(local, ONLY_OK, ProblemsSettings())
    second = languages.attach(local, ONLY_OK, ProblemsSettings())
    assert hub.connections == {}  # nothing runs before a tool or an edit needs it

    report = await first.problems(["a.foo"])
    assert report.problems == [] and report.unchecked == {}
    (connection,) = hub.connections.values()
    assert connection.running and connection.docs  # a.foo was opened in the server
    await second.problems(["a.foo"])
    assert list(hub.connections.values()) == [connection]  # one per workspace and server

    languages.detach(local.root)
    assert connection.running  # the other session still uses it
    client = connection.client
    assert client is not None and client._server is not None
    process = client._server
    languages.detach(local.root)
    assert hub.connections == {}
    await asyncio.wait_for(hub.retired(), 10)
    assert process.returncode == 0  # shut down and exited on its own, not killed
