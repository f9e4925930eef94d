"""`agentls ask`: one headless run, streamed to the terminal."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path

from agentls.cli.approve import TerminalApprover
from agentls.cli.render import TerminalPrinter
from agentls.contracts.errors import ConfigError
from agentls.contracts.observer import NullObserver, RunObserver
from agentls.contracts.outcomes import EXIT_USAGE, RunResult
from agentls.conversation.manager import Conversation, ConversationManager, SessionBusy
from agentls.conversation.settings import Settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.conversation.settings_layers import SettingsLayer
from agentls.permissions.approvers import Approver, AutoApprover, DenyAllApprover
from agentls.session.store import SessionNotFound, SessionStore, default_state_dir
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.roots import too_broad
from agentls.workspace.sandbox import startup_warning


def settings_from_args(args: argparse.Namespace, root: Path, files: SettingsFiles) -> Settings:
    """Defaults < the person's file < the workspace file < flags (rule lists add up)."""
    flags = {
        "model": args.model,
        "mode": args.mode,
        "maxTurns": args.max_turns,
        "maxTokens": args.max_tokens,
        "maxCostUsd": args.max_cost,
        "timeoutSeconds": args.timeout,
        "permissions": {"allow": args.allow, "ask": args.ask, "deny": args.deny},
    }
    loaded = files.load(root, SettingsLayer(flags))
    for note in loaded.notes:
        print(f"agentls: {note}", file=sys.stderr)
    return loaded.settings


def choose_approver(args: argparse.Namespace) -> Approver:
    if args.yes:
        return AutoApprover()
    if sys.stdin.isatty():
        return TerminalApprover()
    return DenyAllApprover()


def run_ask(args: argparse.Namespace) -> int:
    if args.workspace is None and too_broad(Path.cwd()):
        print(
            f"agentls: not asking in {Path.cwd()}: that would let the agent work on all of it. "
            "Run agentls ask in a project folder, or pass --workspace DIR to mean it.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    root = Path(args.workspace or ".").expanduser()
    if not root.is_dir():
        print(f"agentls: workspace {root} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    if not args.prompt.strip():
        print("agentls: the prompt is empty", file=sys.stderr)
        return EXIT_USAGE
    manager = ConversationManager(SessionStore(default_state_dir()))
    manager.mcp.notify = lambda note: print(f"agentls: {note}", file=sys.stderr)
    try:
        settings = settings_from_args(args, root.resolve(), manager.settings_files)
        workspace = LocalWorkspace(root.resolve(), sandbox=settings.sandbox)
        conversation = manager.open(workspace, settings, args.session)
    except (ConfigError, SessionNotFound, ValueError) as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return EXIT_USAGE
    warning = startup_warning(settings.sandbox)
    if warning is not None:
        print(f"agentls: {warning}", file=sys.stderr)
    if conversation.provider.model_id.startswith("scripted:"):
        print(
            f"agentls: SCRIPTED DEMO MODEL ({conversation.provider.model_id}): answers come from "
            "a script, not a real model. Set ANTHROPIC_API_KEY and use --model anthropic:NAME "
            "for the real one.",
            file=sys.stderr,
        )
    observer: RunObserver = (
        NullObserver()
        if args.json
        else TerminalPrinter(show_cost=not conversation.provider.model_id.startswith("scripted:"))
    )
    try:
        result = asyncio.run(_ask(conversation, args.prompt, choose_approver(args), observer))
    except SessionBusy as exc:  # another process (an editor, another ask) is running it
        print(f"agentls: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        manager.close()
    if args.json:
        payload = {"sessionId": conversation.session_id, **result.to_dict()}
        print(json.dumps(payload, ensure_ascii=False))
    else:
        print(f"session {conversation.session_id}", file=sys.stderr)
    return result.exit_code


async def _ask(
    conversation: Conversation, prompt: str, approver: Approver, observer: RunObserver
) -> RunResult:
    loop = asyncio.get_running_loop()
    # Ctrl-C cancels the run (killing a running command's process group) and
    # still lets it write its terminal event; the exit status is then 130.
    loop.add_signal_handler(signal.SIGINT, conversation.cancel)
    loop.add_signal_handler(signal.SIGTERM, conversation.cancel)
    try:
        return await conversation.ask(prompt, approver=approver, observer=observer)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        loop.remove_signal_handler(signal.SIGTERM)
        # The run is over: a Ctrl-C from now on has nothing to abort, and must not
        # end in a KeyboardInterrupt traceback while the process winds down.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if conversation.mcp is not None:
            await conversation.mcp.aclose()  # MCP servers stop while the event loop runs
        if conversation.languages is not None:
            await conversation.languages.aclose()  # language servers too
