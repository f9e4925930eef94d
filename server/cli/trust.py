"""`agentls trust`: approve what the workspace settings file would loosen."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agentls.contracts.errors import ConfigError
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.settings_files import WORKSPACE_FILE, SettingsFiles, read_json
from agentls.session.store import default_state_dir


def run_trust(args: argparse.Namespace) -> int:
    path = Path(args.workspace).expanduser().resolve() / WORKSPACE_FILE
    try:
        data = read_json(path)
    except ConfigError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if data is None:
        print(f"agentls: there is no {path} to approve", file=sys.stderr)
        return EXIT_USAGE
    files = SettingsFiles(default_state_dir())
    if files.is_trusted(path):
        print(f"{path} is already approved")
        return 0
    print(f"Approving {path}, which says:\n{json.dumps(data, indent=2)}")
    files.trust(path)
    print("Approved: its allow rules and settings now apply; any change needs approving again.")
    return 0
