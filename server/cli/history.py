"""`agentls sessions` and `agentls show`: reading stored sessions.

A session's prompts, answers and tool output came from a person, the model and
the workspace: printed, their control characters are shown as escapes.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys
from pathlib import Path

from agentls.cli.visible import one_line, say, visible
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.run_replay import ReplayError, replay_session
from agentls.conversation.undo import UndoRefused, undo_stored
from agentls.session.lock import SessionHeld
from agentls.session.reader import SessionFormatError, read_events
from agentls.session.store import SessionNotFound, SessionStore, default_state_dir
from agentls.session.transcript import render_transcript
from agentls.workspace.local import LocalWorkspace


def run_sessions(args: argparse.Namespace) -> int:
    store = SessionStore(default_state_dir())
    workspace = None if args.all else Path(args.workspace or ".").expanduser().resolve()
    sessions = store.list(workspace)
    if not sessions:
        where = "any workspace" if workspace is None else str(workspace)
        print(f"no sessions for {visible(where)}", file=sys.stderr)
        return 0
    for info in sessions:
        created = _local_time(info.created_at)
        print(f"{info.id}  {created}  {info.outcome:<17}  {one_line(info.first_prompt)}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    store = SessionStore(default_state_dir())
    try:
        path = store.stored_path(args.session_id)
        events = read_events(path)
    except (SessionNotFound, SessionFormatError, ValueError) as exc:
        say(str(exc))
        return EXIT_USAGE
    sys.stdout.write(visible(render_transcript(events)))
    return 0


def _local_time(value: str) -> str:
    try:
        return datetime.datetime.fromisoformat(value).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return value


def run_undo(args: argparse.Namespace) -> int:
    store = SessionStore(default_state_dir())
    try:  # not while a run writes the session
        result = asyncio.run(
            undo_stored(store, args.session_id, args.turn, face="cli", target_for=LocalWorkspace)
        )
    except (SessionNotFound, SessionFormatError, UndoRefused, SessionHeld, ValueError) as exc:
        say(str(exc))
        return EXIT_USAGE
    print(visible(result.describe()))
    return 0 if result.whole else 1  # 1: not everything was undone


def run_replay(args: argparse.Namespace) -> int:
    store = SessionStore(default_state_dir())
    try:
        path = store.stored_path(args.session_id)
        report = asyncio.run(replay_session(read_events(path)))
    except (SessionNotFound, SessionFormatError, ReplayError, ValueError) as exc:
        say(str(exc))
        return EXIT_USAGE
    print(visible(report.describe()))
    return 0 if report.same else 1
