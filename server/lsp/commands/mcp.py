"""`agentls.mcp`: the MCP servers of the workspace folders, their status and tools."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.contracts.errors import ConfigError
from agentls.lsp.commands.arguments import no_argument, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

MCP = "agentls.mcp"


def register(server: AgentServer) -> None:
    @server.command(MCP)
    async def mcp(ls: AgentServer, *args: Any) -> list[dict[str, Any]]:
        from agentls.protocol.commands import McpParams
        from agentls.protocol.reports import McpServerReport

        params = McpParams() if no_argument(args) else parse(McpParams, args, MCP)
        await ls.wait_for_settings()
        roots = [await ls.root_for_async(params.uri)] if params.uri else await ls.roots_async()
        listed: list[dict[str, Any]] = []
        for root in roots:
            try:
                settings = await ls.settings_for_async(root)
            except ConfigError as exc:
                raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
            reports = await ls.manager.mcp_report(
                root, settings, start=params.start, restart=params.restart
            )
            listed.extend(
                McpServerReport.model_validate({"workspace": str(root), **r.to_dict()}).wire()
                for r in reports
            )
        return listed
