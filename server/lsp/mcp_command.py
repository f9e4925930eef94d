"""`agentls.mcp`: the MCP servers of the workspace folders, their status and tools."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.contracts.errors import ConfigError
from agentls.lsp.commands import CommandParams, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

MCP = "agentls.mcp"


class McpParams(CommandParams):
    uri: str | None = None  # only the folder of this document
    restart: bool = False  # give servers that failed a fresh start first
    start: bool = True  # start servers that are not running (bounded by their timeouts)


def register(server: AgentServer) -> None:
    @server.command(MCP)
    async def mcp(ls: AgentServer, *args: Any) -> list[dict[str, Any]]:
        params = McpParams() if not args or args == ({},) else parse(McpParams, args, MCP)
        await ls.wait_for_settings()
        roots = [ls.root_for(params.uri)] if params.uri else ls.roots()
        listed: list[dict[str, Any]] = []
        for root in roots:
            try:
                settings = ls.settings_for(root)
            except ConfigError as exc:
                raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
            if params.restart:
                ls.manager.mcp.reset_failed(root)
            reports = await ls.manager.mcp.report(root, settings.mcp_servers, start=params.start)
            listed.extend({"workspace": str(root), **r.to_dict()} for r in reports)
        return listed
