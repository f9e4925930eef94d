"""`agentls.memory` from an editor: list, add and forget onto the one core operation, each
answer fitting the published schema; bad input is invalid params and changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pygls.workspace import Workspace

from agentls.lsp.commands import memory as memory_command
from agentls.lsp.server import AgentServer
from agentls.session.store import SessionStore
from tests.unit.lsp.test_commands import Registry, call, fits


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n")
    return root


async def test_list_add_and_forget_from_the_editor(tmp_path: Path, project: Path) -> None:
    registry: Any = Registry()
    memory_command.register(registry)
    handler = registry.handlers["agentls.memory"]
    server = AgentServer(SessionStore(tmp_path / "state"))
    server.protocol._workspace = Workspace(project.as_uri())
    uri = (project / "a.py").as_uri()
    empty = fits("agentls.memory", await call(handler, server, {"uri": uri}))
    assert empty["memories"] == []
    added = await call(handler, server, {"uri": uri, "action": "add", "text": "Use pnpm."})
    fits("agentls.memory", added)
    (entry,) = added["memories"]
    assert entry["id"] == added["changed"] and entry["source"] == "explicit_user_rule"
    assert entry["confidence"] == "high" and "Use pnpm." in entry["line"]
    with pytest.raises(JsonRpcInvalidParams, match="no memory m-0000"):
        await call(handler, server, {"uri": uri, "action": "forget", "id": "m-0000"})
    forgot = await call(handler, server, {"uri": uri, "action": "forget", "id": entry["id"]})
    assert forgot["memories"] == [] and forgot["changed"] == entry["id"]
    with pytest.raises(JsonRpcInvalidParams, match="needs some text"):
        await call(handler, server, {"uri": uri, "action": "add", "text": "  "})
