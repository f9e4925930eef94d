"""`agentls mcp list`: the MCP servers a workspace's settings name, started, with their tools."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from agentls.cli.visible import json_visible, say, visible
from agentls.contracts.errors import ConfigError
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.mcp_listing import mcp_reports
from agentls.conversation.settings_files import SettingsFiles
from agentls.session.store import default_state_dir

EXIT_SERVER_FAILED = 1


def run_mcp_list(args: argparse.Namespace) -> int:
    root = Path(args.workspace).expanduser()
    if not root.is_dir():
        say(f"workspace {root} is not a directory")
        return EXIT_USAGE
    root = root.resolve()
    try:
        loaded = SettingsFiles(default_state_dir()).load(root)
    except ConfigError as exc:
        say(str(exc))
        return EXIT_USAGE
    for note in loaded.notes:
        say(note)
    servers = loaded.settings.mcp_servers
    reports = asyncio.run(mcp_reports(root, servers)) if servers else []
    if args.json:
        print(json_visible(json.dumps(reports, indent=2, ensure_ascii=False)))
    elif not reports:
        print("No MCP servers are configured (the mcpServers setting).")
    else:
        print(visible(render(reports)))  # names, errors and descriptions from the servers
    failed = any(r["status"] not in ("ready", "disabled") for r in reports)
    return EXIT_SERVER_FAILED if failed else 0


def render(reports: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for report in reports:
        name, status, tools = report["name"], report["status"], report["tools"]
        if status == "disabled":
            lines.append(f"{name}: disabled")
            continue
        count = f", {len(tools)} tool{'s' if len(tools) != 1 else ''}"
        shown = count if status == "ready" else ""
        lines.append(f"{name} ({report['transport']}: {report['target']}): {status}{shown}")
        if report["error"]:
            lines.append(f"  {report['error']}")
        width = max((len(t["name"]) for t in tools), default=0)
        for tool in tools:
            flag = "read-only" if tool["readOnly"] else ""
            lines.append(f"  {tool['name']:<{width}}  {flag:<9}  {tool['description']}".rstrip())
        lines.extend(f"  note: {note}" for note in report["notes"])
    return "\n".join(lines)
