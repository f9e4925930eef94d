"""`agentls mcp list`: the MCP servers a workspace's settings name, started once, as reports."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentls.mcp.config import McpServerConfig
from agentls.mcp.hub import McpHub


async def mcp_reports(root: Path, servers: Mapping[str, McpServerConfig]) -> list[dict[str, Any]]:
    """Each server's status and tools, in the settings' order (`ServerReport.to_dict`)."""
    hub = McpHub(notify=lambda note: None)  # the listing itself says what failed
    try:
        return [report.to_dict() for report in await hub.report(root, servers)]
    finally:
        await hub.aclose()
