"""What a hook script written for Claude Code expects: its tool names, its input fields
and its names of the permission modes, beside agentls's own.

A hook gets ``tool_name`` as Claude Code names the tool (`Bash`, `Edit`, `Write`, `Read`,
`Grep`, `Glob`; agentls's name for the others) and ``tool_input`` with agentls's fields
and Claude Code's (`command`, `file_path` made absolute, `old_string`, `new_string`,
`content`, `pattern`, ...), so the same script reads either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CLAUDE_NAMES = {
    "run_command": "Bash",
    "edit_file": "Edit",
    "write_file": "Write",
    "read_file": "Read",
    "search": "Grep",
    "list_files": "Glob",
}
PERMISSION_MODES = {
    "default": "default",
    "accept-edits": "acceptEdits",
    "plan": "plan",
    "bypass": "bypassPermissions",
}


def tool_names(tool: str) -> tuple[str, ...]:
    """The names a matcher may give the tool: agentls's, then Claude Code's if it has one."""
    claude = CLAUDE_NAMES.get(tool)
    return (tool,) if claude is None else (tool, claude)


def hook_tool_name(tool: str) -> str:
    return CLAUDE_NAMES.get(tool, tool)


def tool_input(tool: str, given: dict[str, Any], root: Path) -> dict[str, Any]:
    """The call's input with Claude Code's fields added where the tool has them."""
    out = dict(given)
    path = given.get("path")
    if tool in ("edit_file", "write_file", "read_file") and isinstance(path, str):
        out["file_path"] = str(root / path) if not Path(path).is_absolute() else path
    if tool == "edit_file":
        out["old_string"] = given.get("old_text", "")
        out["new_string"] = given.get("new_text", "")
    elif tool == "list_files" and "pattern" not in out:
        out["pattern"] = "*"
    return out


def tool_response(
    tool: str,
    given: dict[str, Any],
    ok: bool,
    content: str,
    error: str | None,
    meta: dict[str, Any],
) -> dict[str, Any]:
    """What a call gave back, for PostToolUse: agentls's fields and Claude Code's."""
    out: dict[str, Any] = {"success": ok, "output": content, "error": error}
    if tool == "run_command":
        out |= {"stdout": content, "stderr": "", "interrupted": False}
        if "exitCode" in meta:
            out["exitCode"] = meta["exitCode"]
    elif tool in ("edit_file", "write_file") and isinstance(given.get("file_path"), str):
        out["filePath"] = given["file_path"]
    return out
