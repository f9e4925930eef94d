"""`agentls trust`: approve what the workspace settings file would loosen."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agentls.cli.visible import say, visible
from agentls.contracts.errors import ConfigError
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.settings_files import WORKSPACE_FILE, SettingsFiles, read_json
from agentls.session.store import default_state_dir


def run_trust(args: argparse.Namespace) -> int:
    path = Path(args.workspace).expanduser().resolve() / WORKSPACE_FILE
    try:
        data = read_json(path)
    except ConfigError as exc:
        say(str(exc))
        return EXIT_USAGE
    if data is None:
        say(f"there is no {path} to approve")
        return EXIT_USAGE
    files = SettingsFiles(default_state_dir())
    if files.is_trusted(path):
        print(f"{visible(str(path))} is already approved")
        return 0
    print(f"Approving {visible(str(path))}, which says:\n{json.dumps(data, indent=2)}")
    files.trust(path)
    print("Approved: its allow rules and settings now apply; any change needs approving again.")
    return 0
