"""Prompt commands for the faces: a workspace's commands found with their trust (the
person's own folder is trusted; a workspace file once approved with `agentls trust`),
a prompt's `/name` put to use, and the log's record of it.

The faces import the names they need from here: `AskedPrompt`, `CommandCatalog`,
`CommandUse`, `PromptCommand`, `UnknownPromptCommand`, `RESERVED`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls.contracts.tooling import Risk
from agentls.conversation.settings_files import SettingsFiles
from agentls.prompt_commands.catalog import (
    RESERVED,
    AskedPrompt,
    CommandCatalog,
    CommandUse,
    PromptCommand,
    UnknownPromptCommand,
    plain,
)
from agentls.prompt_commands.files import find_commands
from agentls.runtime.registry import ToolRegistry
from agentls.session import events as ev
from agentls.workspace.control import config_dir

__all__ = [
    "RESERVED",
    "AskedPrompt",
    "CommandCatalog",
    "CommandUse",
    "PromptCommand",
    "UnknownPromptCommand",
    "command_listing",
    "load_commands",
    "plain",
    "use_event",
]


def load_commands(
    root: Path | None, settings_files: SettingsFiles | None, registry: ToolRegistry
) -> CommandCatalog:
    """The commands of ``root`` and the person's own (blocking: the faces' event loops call
    it on a thread). Only tools a rule may allow can be named by `allowed-tools`: never the
    memory tool, which only a person's yes may use."""
    known = [name for name in registry.names if _allowable(registry, name)]

    def approved(path: Path, digest: str) -> bool:
        return settings_files is not None and settings_files.approved(path, digest)

    return find_commands(root, config_dir(), approved=approved, known_tools=known)


def command_listing(catalog: CommandCatalog) -> dict[str, Any]:
    """The commands and what was skipped, JSON-ready (`CommandsInfo`): the doctor's
    section and `agentls.commands`' answer."""
    return {
        "commands": [
            {
                "name": c.name,
                "description": c.description,
                "argumentHint": c.argument_hint,
                "inputHint": c.input_hint,
                "path": c.shown_as,
                "scope": c.scope,
                "trusted": c.trusted,
                "allowedTools": list(c.allowed_tools),
                "rules": [str(rule) for rule in c.rules],
                "notes": list(c.notes),
                "shadows": list(c.shadows),
            }
            for c in catalog.commands
        ],
        "problems": list(catalog.problems),
    }


def use_event(use: CommandUse, run_id: str) -> ev.PromptCommandUsed:
    command = use.command
    return ev.PromptCommandUsed(
        run=run_id,
        name=command.name,
        path=command.shown_as,
        sha256=command.sha256,
        scope=command.scope,
        arguments=use.arguments,
        trusted=command.trusted,
        rules=[str(rule) for rule in command.rules],
        notes=list(command.notes),
    )


def _allowable(registry: ToolRegistry, name: str) -> bool:
    tool = registry.get(name)
    return tool is not None and tool.risk is not Risk.MEMORY
