"""McpHub: the MCP servers of every workspace, started when a run first needs their tools.

Servers are keyed by workspace root and name (`agentls.supervision.Registry`):
a stdio server runs in its workspace's root, and a settings change (a new
config for a name, or a name no longer there) stops the old process and starts
the new one on next use. Nothing starts when agentls starts; a run asks for its
tools (`tools`), which starts whatever is not running yet, all at once, each
bounded by its own timeouts. A server that does not start is reported
(`notify`) and left out; the rest go on.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.mcp.config import McpServerConfig
from agentls.supervision import Registry
from agentls.workspace.interface import ToolDefinition

if TYPE_CHECKING:  # the SDK takes a third of a second to import: only when a server is named
    from agentls.mcp.connection import McpConnection
    from agentls.mcp.tools import Exposed

log = logging.getLogger(__name__)

Notify = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str  # as the model sees it
    server_name: str  # as the server calls it
    description: str
    read_only: bool  # the server's readOnlyHint


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerReport:
    name: str
    transport: str  # "stdio" | "http" | "none" (disabled without one)
    target: str  # the command line or the URL (never env or headers)
    status: str  # "ready" | "failed" | "stopped" | "starting" | "disabled"
    error: str | None
    restarts: int
    tools: list[ToolInfo] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # tools left out, and why

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "transport": self.transport,
            "target": self.target,
            "status": self.status,
            "error": self.error,
            "restarts": self.restarts,
            "tools": [
                {
                    "name": t.name,
                    "serverName": t.server_name,
                    "description": t.description,
                    "readOnly": t.read_only,
                }
                for t in self.tools
            ],
            "notes": self.notes,
        }


def _log_warning(message: str) -> None:
    log.warning("%s", message)


class McpHub:
    def __init__(self, notify: Notify | None = None) -> None:
        self.notify: Notify = _log_warning if notify is None else notify
        self._servers: Registry[Path, str, McpConnection] = Registry()
        # Tool definitions per connection and start, so a run's list is built once.
        self._definitions: weakref.WeakKeyDictionary[
            McpConnection, tuple[int, list[Exposed], list[str]]
        ] = weakref.WeakKeyDictionary()
        self._told: set[str] = set()

    def _tell(self, message: str) -> None:
        try:
            self.notify(message)
        except Exception:  # telling the person must never break a run
            log.exception("reporting an MCP server's state failed")

    def _tell_once(self, message: str) -> None:
        if message not in self._told:
            self._told.add(message)
            self._tell(message)

    def connections(
        self, root: Path, servers: Mapping[str, McpServerConfig]
    ) -> list[McpConnection]:
        """The connections for these settings; ones no longer configured are stopped."""
        wanted = {name: c for name, c in servers.items() if not c.disabled}
        self._servers.keep(root, wanted)
        return [self._connection(root, name, config) for name, config in wanted.items()]

    def _connection(self, root: Path, name: str, config: McpServerConfig) -> McpConnection:
        def make() -> McpConnection:
            from agentls.mcp.connection import McpConnection

            return McpConnection(name, config, root, self._tell)

        return self._servers.child(root, name, config, make)

    async def tools(
        self, root: Path, servers: Mapping[str, McpServerConfig]
    ) -> list[ToolDefinition[Any]]:
        """The tools of every configured server that runs (starting them); others left out."""
        connections = self.connections(root, servers)
        if not connections:
            return []
        await asyncio.gather(*(c.ready() for c in connections))
        found: dict[str, ToolDefinition[Any]] = {}
        for connection in connections:
            if connection.status != "ready":
                continue
            tools, notes = self._definitions_of(connection)
            for note in notes:
                self._tell_once(note)
            for tool in tools:
                name = tool.definition.name
                if name in found:  # server a__b's tool c is server a's tool b__c
                    self._tell_once(
                        f"MCP server {connection.name!r}: tool {tool.remote.name!r} "
                        f"left out ({name} is taken)"
                    )
                    continue
                found[name] = tool.definition
        return list(found.values())

    def _definitions_of(self, connection: McpConnection) -> tuple[list[Exposed], list[str]]:
        cached = self._definitions.get(connection)
        if cached is not None and cached[0] == connection.generation:
            return cached[1], cached[2]
        from agentls.mcp.tools import definitions

        tools, notes = definitions(connection)
        self._definitions[connection] = (connection.generation, tools, notes)
        return tools, notes

    async def report(
        self, root: Path, servers: Mapping[str, McpServerConfig], *, start: bool = True
    ) -> list[ServerReport]:
        """Every configured server with its status and tools (started first, by default)."""
        connections = self.connections(root, servers)
        if start and connections:
            await asyncio.gather(*(c.ready() for c in connections))
        reports = []
        for name, config in servers.items():
            if config.disabled:
                reports.append(
                    ServerReport(
                        name=name,
                        transport=config.transport,
                        target=config.target(),
                        status="disabled",
                        error=None,
                        restarts=0,
                    )
                )
                continue
            connection = self._connection(root, name, config)
            tools: list[Exposed] = []
            notes: list[str] = []
            if connection.status == "ready":
                tools, notes = self._definitions_of(connection)
            infos = [_info(t) for t in tools]
            report = ServerReport(
                name=name,
                transport=config.transport,
                target=config.target(),
                status=connection.status,
                error=connection.error,
                restarts=connection.restarts,
                tools=infos,
                notes=notes,
            )
            reports.append(report)
        return reports

    def reset_failed(self, root: Path) -> None:
        """Give failed servers of this root a fresh start on next use."""
        for connection in self._servers.children(root).values():
            connection.reset()

    async def aclose(self) -> None:
        """Stop every server (bounded); the hub may be used again afterwards."""
        self._definitions.clear()
        await self._servers.aclose()


def _info(tool: Exposed) -> ToolInfo:
    lines = (tool.remote.description or "").strip().splitlines()
    first = lines[0][:200] if lines else ""
    return ToolInfo(tool.definition.name, tool.remote.name, first, tool.definition.read_only_hint)
