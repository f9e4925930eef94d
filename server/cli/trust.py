"""`agentls trust`: approve what the workspace's files would loosen: its settings file, and
the command files whose `allowed-tools` would add allow rules to a session."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agentls.cli.visible import say, visible
from agentls.contracts.errors import ConfigError
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.command_files import PromptCommand
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings_files import WORKSPACE_FILE, SettingsFiles, read_json
from agentls.session.store import SessionStore, default_state_dir


def run_trust(args: argparse.Namespace) -> int:
    root = Path(args.workspace).expanduser().resolve()
    path = root / WORKSPACE_FILE
    try:
        data = read_json(path)
    except ConfigError as exc:
        say(str(exc))
        return EXIT_USAGE
    state_dir = default_state_dir()
    manager = ConversationManager(SessionStore(state_dir))
    files = SettingsFiles(state_dir)  # the manager's own judge the same approvals
    commands = _commands_to_approve(manager, root) if root.is_dir() else []
    if data is None and not commands:
        say(f"there is no {path} and no command file with allowed-tools to approve")
        return EXIT_USAGE
    settings_approved = data is None or files.is_trusted(path)
    if data is not None and settings_approved:
        print(f"{visible(str(path))} is already approved")
        if not commands:
            return 0
    elif data is not None:
        print(f"Approving {visible(str(path))}, which says:\n{json.dumps(data, indent=2)}")
        files.trust(path)
    for command in commands:
        rules = ", ".join(str(rule) for rule in command.requested_rules)
        print(visible(f"Approving {command.shown_as} (/{command.name}), which allows: {rules}"))
    files.approve([(command.path, command.sha256) for command in commands])
    print(
        "Approved: its allow rules and settings now apply (a command's allowed-tools when it "
        "is asked for); any change needs approving again."
    )
    return 0


def _commands_to_approve(manager: ConversationManager, root: Path) -> list[PromptCommand]:
    """The workspace's commands that would add rules and are not approved as they are now."""
    catalog = manager.prompt_commands(root)
    return [
        c for c in catalog.commands
        if c.scope == "workspace" and c.requested_rules and not c.trusted
    ]  # fmt: skip
