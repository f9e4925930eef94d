"""The built-in agent tools, written only against the Workspace interface."""

from __future__ import annotations

from typing import Any

from agentls.tools.definition import DEFINITION, REFERENCES
from agentls.tools.edit_file import EDIT_FILE
from agentls.tools.list_files import LIST_FILES
from agentls.tools.problems import PROBLEMS
from agentls.tools.read_file import READ_FILE
from agentls.tools.remember import REMEMBER
from agentls.tools.rename import RENAME
from agentls.tools.run_command import RUN_COMMAND
from agentls.tools.search import SEARCH
from agentls.tools.symbols import SYMBOLS
from agentls.tools.write_file import WRITE_FILE
from agentls.workspace.interface import ToolDefinition

BUILTIN_TOOLS: tuple[ToolDefinition[Any], ...] = (
    READ_FILE,
    LIST_FILES,
    SEARCH,
    EDIT_FILE,
    WRITE_FILE,
    RUN_COMMAND,
    PROBLEMS,
    DEFINITION,
    REFERENCES,
    SYMBOLS,
    RENAME,
    REMEMBER,
)


def tools_by_name() -> dict[str, ToolDefinition[Any]]:
    return {tool.name: tool for tool in BUILTIN_TOOLS}


__all__ = [
    "BUILTIN_TOOLS",
    "DEFINITION",
    "EDIT_FILE",
    "LIST_FILES",
    "PROBLEMS",
    "READ_FILE",
    "REFERENCES",
    "REMEMBER",
    "RENAME",
    "RUN_COMMAND",
    "SEARCH",
    "SYMBOLS",
    "WRITE_FILE",
    "tools_by_name",
]
