"""`agentls memory add|list|forget`: what the agent is told across sessions, kept under
the state folder (see docs/instructions-and-memory.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agentls.cli.visible import json_visible, say, visible
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.memory_ops import (
    MemoryStoreError,
    add_memory,
    forget_memory,
    list_memories,
)
from agentls.session.store import default_state_dir


def run_memory(args: argparse.Namespace) -> int:
    root = Path(args.workspace).expanduser().resolve()
    state = default_state_dir()
    try:
        if args.memory_command == "add":
            record = add_memory(root, state, args.text, scope=args.scope, expires_days=args.expires)
            print(f"remembered {record.id} ({record.scope})")
            return 0
        if args.memory_command == "forget":
            gone = forget_memory(root, state, args.id)
            if gone is None:
                say(f"no memory {args.id} for you or for {root}")
                return EXIT_USAGE
            print(f"forgot {gone.id}: {visible(gone.content)}")
            return 0
    except (ValueError, MemoryStoreError) as exc:
        say(str(exc))
        return EXIT_USAGE
    listing = list_memories(root, state)
    for warning in listing.warnings:
        say(warning)
    if args.json:
        print(json_visible(json.dumps(listing.to_json(), ensure_ascii=False)))
    else:
        for line in listing.lines():
            print(visible(line))
    return 0
