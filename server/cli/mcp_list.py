"""`agentls mcp list`: the MCP servers a workspace's settings name, started, with their tools."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from agentls.contracts.errors import ConfigError
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.settings_files import SettingsFiles
from agentls.mcp.config import McpServerConfig
from agentls.mcp.hub import McpHub, ServerReport
from agentls.session.store import default_state_dir

EXIT_SERVER_FAILED = 1


def run_mcp_list(args: argparse.Namespace) -> int:
    root = Path(args.workspace).expanduser()
    if not root.is_dir():
        print(f"agentls: workspace {root} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    root = root.resolve()
    try:
        loaded = SettingsFiles(default_state_dir()).load(root)
    except ConfigError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for note in loaded.notes:
        print(f"agentls: {note}", file=sys.stderr)
    servers = loaded.settings.mcp_servers
    reports = asyncio.run(_report(root, servers)) if servers else []
    if args.json:
        print(json.dumps([r.to_dict() for r in reports], indent=2, ensure_ascii=False))
    elif not reports:
        print("No MCP servers are configured (the mcpServers setting).")
    else:
        print(render(reports))
    failed = any(r.status not in ("ready", "disabled") for r in reports)
    return EXIT_SERVER_FAILED if failed else 0


async def _report(root: Path, servers: dict[str, McpServerConfig]) -> list[ServerReport]:
    hub = McpHub(notify=lambda note: None)  # the listing itself says what failed
    try:
        return await hub.report(root, servers)
    finally:
        await hub.aclose()


def render(reports: list[ServerReport]) -> str:
    lines: list[str] = []
    for report in reports:
        if report.status == "disabled":
            lines.append(f"{report.name}: disabled")
            continue
        count = f", {len(report.tools)} tool{'s' if len(report.tools) != 1 else ''}"
        shown = count if report.status == "ready" else ""
        lines.append(f"{report.name} ({report.transport}: {report.target}): {report.status}{shown}")
        if report.error:
            lines.append(f"  {report.error}")
        width = max((len(t.name) for t in report.tools), default=0)
        for tool in report.tools:
            flag = "read-only" if tool.read_only else ""
            lines.append(f"  {tool.name:<{width}}  {flag:<9}  {tool.description}".rstrip())
        lines.extend(f"  note: {note}" for note in report.notes)
    return "\n".join(lines)
