"""A command file's `allowed-tools` as agentls allow rules, never wider than what it says.

Entries come in Claude Code's spelling (`Bash(git add:*)`, `Read(src/**)`, `Edit`,
`mcp__github__get_issue`) or in agentls's own (`run_command(git status)`). Each becomes
at most one agentls rule: a command pattern word by word (Claude Code's `:*` is a
trailing `*`), a path pattern relative to the workspace. An entry that names a tool
agentls does not have, a glob over tool names, a path outside the workspace, or a
pattern agentls cannot read is left out with a note, never widened into something
that would match more.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection
from dataclasses import dataclass

from agentls.permissions.rules import Rule, parse_rule

# Claude Code's tool names and the agentls tool each stands for.
CLAUDE_TOOLS = {
    "Bash": "run_command",
    "Read": "read_file",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "Write": "write_file",
    "Grep": "search",
    "Glob": "list_files",
    "LS": "list_files",
}
COMMAND_TOOL = "run_command"
PATH_TOOLS = frozenset({"read_file", "edit_file", "write_file", "list_files", "search"})
_ENTRY = re.compile(r"^\s*([A-Za-z0-9_*.\-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_MCP_TOOL = re.compile(r"^mcp__[A-Za-z0-9_.\-]+__[A-Za-z0-9_.\-]+$")
_MCP_SERVER = re.compile(r"^mcp__[A-Za-z0-9_.\-]+$")
_OPERATORS = frozenset(";&|<>`$()")


@dataclass(frozen=True, slots=True)
class AllowedTools:
    rules: tuple[Rule, ...]
    notes: tuple[str, ...]  # entries left out, and why


def allow_rules(entries: list[str], known_tools: Collection[str]) -> AllowedTools:
    """``entries`` as allow rules; ``known_tools`` are the agentls tools an entry may name
    (MCP tools aside, whose names are not known before their servers start)."""
    rules: list[Rule] = []
    notes: list[str] = []
    for entry in entries:
        try:
            rule = _rule(entry.strip(), known_tools)
        except ValueError as exc:
            notes.append(f"allowed-tools {entry.strip()!r} left out: {exc}")
            continue
        if rule not in rules:
            rules.append(rule)
    return AllowedTools(tuple(rules), tuple(notes))


def _rule(entry: str, known_tools: Collection[str]) -> Rule:
    found = _ENTRY.match(entry)
    if found is None:
        raise ValueError("not `Tool` or `Tool(pattern)`")
    name, pattern = found.group(1), found.group(2)
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise ValueError("an empty pattern")
    tool = _tool(name, known_tools)
    if pattern is None:
        return Rule(tool, None)
    if tool == COMMAND_TOOL:
        return Rule(tool, _command_pattern(pattern))
    if tool in PATH_TOOLS:
        return Rule(tool, _path_pattern(pattern))
    return parse_rule(f"{tool}({pattern})")


def _tool(name: str, known_tools: Collection[str]) -> str:
    if name in CLAUDE_TOOLS:
        return CLAUDE_TOOLS[name]
    if _MCP_TOOL.match(name):
        return name
    if _MCP_SERVER.match(name):  # Claude Code: every tool of that server
        return f"{name}__*"
    if any(c in name for c in "*?["):
        raise ValueError("a glob over tool names; name the tools")
    if name in known_tools:
        return name
    raise ValueError("no such tool in agentls")


def _command_pattern(pattern: str) -> str:
    """Claude Code's `git add:*` (a prefix) as agentls's `git add *`; the words must read
    as one simple command."""
    if pattern.endswith(":*"):
        pattern = pattern[:-2].rstrip() + " *"
    try:
        words = shlex.split(pattern)
    except ValueError:
        raise ValueError("its quotes do not close") from None
    if not words:
        raise ValueError("an empty pattern")
    if any(set(word) & _OPERATORS for word in words if word != "*"):
        raise ValueError("a rule names one simple command, without operators or expansions")
    return pattern


def _path_pattern(pattern: str) -> str:
    """A workspace-relative path glob: no absolute, home or parent paths."""
    cleaned = pattern.removeprefix("./")
    if cleaned.startswith(("/", "~")) or cleaned == ".." or cleaned.startswith("../"):
        raise ValueError("only paths inside the workspace, written relative to it")
    if "/../" in f"/{cleaned}/":
        raise ValueError("only paths inside the workspace, written relative to it")
    return cleaned
