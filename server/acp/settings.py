"""A session's settings: the person's and the workspace's files, `--model`, and the
MCP servers the client passed in session/new (under the same gate as any)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio

from agentls.conversation.settings import Settings
from agentls.conversation.settings_layers import LoadedSettings, SettingsLayer

log = logging.getLogger(__name__)

_NOT_A_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def session_settings(
    load: Callable[[Path, SettingsLayer], LoadedSettings],
    root: Path,
    model: str | None,
    servers: Sequence[Any] | None,
) -> Settings:
    """Defaults < the person's file < the workspace file < `--model` < the client's servers."""
    more: dict[str, Any] = {}
    if model:
        more["model"] = model
    mcp = mcp_servers(servers or ())
    if mcp:
        more["mcpServers"] = mcp
    loaded = load(root, SettingsLayer(more))
    for note in loaded.notes:
        log.warning("%s", note)
    return loaded.settings


def mcp_servers(servers: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """ACP's server list as `mcpServers` entries; kinds agentls cannot reach are left out."""
    found: dict[str, dict[str, Any]] = {}
    for server in servers:
        name = _NOT_A_NAME.sub("-", server.name).strip("-_")[:40] or "server"
        if isinstance(server, McpServerStdio):
            found[name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {v.name: v.value for v in server.env},
            }
        elif isinstance(server, HttpMcpServer):
            found[name] = {"url": server.url, "headers": {h.name: h.value for h in server.headers}}
        else:
            log.warning("MCP server %r left out: agentls speaks stdio and HTTP only", server.name)
    return found
