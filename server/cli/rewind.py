"""`agentls rewind` and `agentls fork`: a session taken back to an ask, or branched there."""

from __future__ import annotations

import argparse
import asyncio

from agentls.cli.visible import say, visible
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.forking import fork_stored
from agentls.conversation.rewind import RewindRefused, rewind_stored
from agentls.session.forking import ForkRefused
from agentls.session.lock import SessionHeld
from agentls.session.reader import SessionFormatError
from agentls.session.store import SessionNotFound, SessionStore, default_state_dir
from agentls.workspace.local import LocalWorkspace

_REFUSED = (SessionNotFound, SessionFormatError, SessionHeld, ValueError)


def run_rewind(args: argparse.Namespace) -> int:
    """0: rewound whole; 1: some files were kept (changed since) or refused, and named;
    2: refused, nothing changed."""
    store = SessionStore(default_state_dir())
    try:  # not while a run writes the session: the holder is named
        result = asyncio.run(
            rewind_stored(
                store,
                args.session_id,
                args.ask,
                face="cli",
                target_for=LocalWorkspace,
                conversation=not args.files_only,
                files=not args.conversation_only,
                dry_run=args.dry_run,
            )
        )
    except (*_REFUSED, RewindRefused) as exc:
        say(str(exc))
        return EXIT_USAGE
    print(visible(result.describe()))
    return 0 if result.whole or result.dry_run else 1


def run_fork(args: argparse.Namespace) -> int:
    store = SessionStore(default_state_dir())
    try:
        fork_id = asyncio.run(fork_stored(store, args.session_id, args.ask, face="cli"))
    except (*_REFUSED, ForkRefused) as exc:
        say(str(exc))
        return EXIT_USAGE
    print(fork_id)
    return 0
