"""How agentls's tool calls look as ACP tool calls: kind, title, locations, content."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from acp.schema import ContentToolCallContent, TextContentBlock, ToolCallLocation, ToolCallStart

from agentls.contracts.processes import ProcessChange

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]

_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "problems": "read",
    "list_files": "search",
    "search": "search",
    "definition": "search",
    "references": "search",
    "symbols": "search",
    "write_file": "edit",
    "edit_file": "edit",
    "rename": "edit",
    "run_command": "execute",
    "update_plan": "think",
    "propose_plan": "switch_mode",
    "process_output": "read",
    "process_stop": "execute",
}
# What a permission request's title says for a call of these tools, with its path.
_VERBS = {"read_file": "Read", "write_file": "Write", "edit_file": "Edit"}
# A tool call's output shown in the client is cut here; the model got its own bounded copy.
SHOWN_OUTPUT_CHARS = 8000


def kind_of(tool: str) -> ToolKind:
    return _KINDS.get(tool, "other")


def locations(root: Path, tool_input: dict[str, Any]) -> list[ToolCallLocation] | None:
    path = tool_input.get("path")
    if not isinstance(path, str) or not path:
        return None
    line = tool_input.get("offset") if isinstance(tool_input.get("offset"), int) else None
    # Lexical, not resolved: no disk call on the event loop, and a symlink keeps the name
    # the model used (``root`` itself is resolved when the session opens).
    return [ToolCallLocation(path=os.path.normpath(root / path), line=line)]


def permission_title(tool: str, tool_input: dict[str, Any], summary: str) -> str:
    """What a person decides on: the command itself, "Edit greet.py", else the summary."""
    command = tool_input.get("command") if tool == "run_command" else None
    if isinstance(command, str) and command.strip():
        lines = command.strip().splitlines()
        return lines[0] + (" …" if len(lines) > 1 else "")
    path = tool_input.get("path")
    if tool in _VERBS and isinstance(path, str) and path:
        return f"{_VERBS[tool]} {os.path.normpath(path)}"
    return summary


def text_content(text: str) -> ContentToolCallContent:
    if len(text) > SHOWN_OUTPUT_CHARS:
        text = text[:SHOWN_OUTPUT_CHARS] + f"\n… ({len(text) - SHOWN_OUTPUT_CHARS} more characters)"
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def process_ended(change: ProcessChange) -> ToolCallStart | None:
    """A background process that exited or was stopped (not by the model, whose
    process_stop call shows it) as a tool call of its own, completed."""
    info = change.process
    if change.action == "started" or change.by == "model":
        return None
    if change.action == "exited":
        title = f"Background process {info.id} exited (exit code {info.exit_code})"
    else:
        title = f"Background process {info.id} stopped ({change.by})"
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=f"{info.origin.call_id or info.id}-{info.id}-{change.action}",
        title=title,
        kind="execute",
        status="completed",
        content=[text_content(f"$ {info.command}")],
        raw_output={"id": info.id, "state": info.state, "exitCode": info.exit_code},
    )
