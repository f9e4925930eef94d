"""`agentls ask`: one headless run, streamed to the terminal.

A termination signal (SIGINT, SIGTERM, SIGHUP) aborts the run, which still
writes its end to the log; the process then ends within ``GRACE_SECONDS``
whatever it was waiting for. stdout and stderr are written by a thread
(`output.py`), so a reader that stopped reading never holds the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentls.cli.approve import TerminalApprover
from agentls.cli.output import queue_std_streams
from agentls.cli.render import HookNoticePrinter, TerminalPrinter
from agentls.cli.visible import json_visible, say
from agentls.contracts.errors import ConfigError
from agentls.contracts.observer import RunObserver
from agentls.contracts.outcomes import EXIT_CODES, EXIT_USAGE, RunResult, TerminalReason
from agentls.contracts.processes import ProcessChange
from agentls.conversation.command_files import AskedPrompt, UnknownPromptCommand
from agentls.conversation.one_session import Conversation, SessionBusy
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.prompt_images import PromptImage, read_image_file
from agentls.conversation.run_builder import finish_telemetry
from agentls.conversation.settings import Settings
from agentls.conversation.settings_layers import LoadedSettings, SettingsLayer
from agentls.permissions.approvers import Approver, AutoApprover, DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.session.store import SessionNotFound, SessionStore, default_state_dir
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.roots import too_broad
from agentls.workspace.sandbox import startup_warning


def settings_from_args(
    args: argparse.Namespace, root: Path, load: Callable[[Path, SettingsLayer], LoadedSettings]
) -> Settings:
    """Defaults < the person's file < the workspace file < flags (rule lists add up)."""
    flags = {
        "model": args.model,
        "mode": args.mode,
        "maxTurns": args.max_turns,
        "maxTokens": args.max_tokens,
        "maxCostUsd": args.max_cost,
        "timeoutSeconds": args.timeout,
        "reasoning": args.reasoning,
        "permissions": {"allow": args.allow, "ask": args.ask, "deny": args.deny},
    }
    loaded = load(root, SettingsLayer(flags))
    for note in loaded.notes:
        say(note)
    return loaded.settings


def choose_approver(args: argparse.Namespace) -> Approver:
    if args.yes:
        return AutoApprover()
    if sys.stdin.isatty():
        return TerminalApprover()
    return DenyAllApprover()


TERMINATING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE_SECONDS = 10.0  # after a termination signal, the longest the process goes on
DRAIN_AFTER_SIGNAL_SECONDS = 2.0  # output still waiting then is dropped


class Termination:
    """What a termination signal does during the run: abort it, and make sure the
    process ends even if something it waits for never comes."""

    def __init__(self) -> None:
        self.signalled = False

    def __call__(self, conversation: Conversation) -> None:
        conversation.cancel()  # the run ends as aborted and writes its end
        if self.signalled:
            return
        self.signalled = True
        last_resort = threading.Timer(
            GRACE_SECONDS, os._exit, (EXIT_CODES[TerminalReason.ABORTED],)
        )
        last_resort.daemon = True
        last_resort.start()


def run_ask(args: argparse.Namespace) -> int:
    output = queue_std_streams()
    termination = Termination()
    try:
        return _run_ask(args, termination)
    finally:
        # The log is whole and closed: a signal from here on may end the process at once.
        for signum in TERMINATING:
            signal.signal(signum, signal.SIG_DFL)
        finish_telemetry()  # after the result is out; bounded, whatever the collector does
        output.drain(DRAIN_AFTER_SIGNAL_SECONDS if termination.signalled else None)


def _run_ask(args: argparse.Namespace, termination: Termination) -> int:
    if args.workspace is None and too_broad(Path.cwd()):
        say(
            f"not asking in {Path.cwd()}: that would let the agent work on all of it. "
            "Run agentls ask in a project folder, or pass --workspace DIR to mean it."
        )
        return EXIT_USAGE
    root = Path(args.workspace or ".").expanduser()
    if not root.is_dir():
        say(f"workspace {root} is not a directory")
        return EXIT_USAGE
    if not args.prompt.strip():
        say("the prompt is empty")
        return EXIT_USAGE
    try:
        images = [read_image_file(Path(name).expanduser()) for name in args.image]
    except ConfigError as exc:
        say(str(exc))
        return EXIT_USAGE
    manager = ConversationManager(SessionStore(default_state_dir()), notify=say)
    try:
        settings = settings_from_args(args, root.resolve(), manager.load_settings)
        # `/name args` is expanded from its command file before any session is made.
        asked = manager.prompt(root.resolve(), args.prompt)
        workspace = LocalWorkspace(root.resolve(), sandbox=settings.sandbox)
        # A --mode named here wins over the mode a resumed session keeps, and is logged.
        named = Mode(args.mode) if args.mode else None
        conversation = manager.open(workspace, settings, args.session, mode=named, images=images)
    except (ConfigError, SessionNotFound, UnknownPromptCommand, ValueError) as exc:
        say(str(exc))
        return EXIT_USAGE
    warning = startup_warning(settings.sandbox)
    if warning is not None:
        say(warning)
    if not conversation.shows_cost:
        say(
            f"SCRIPTED DEMO MODEL ({conversation.model_id}): answers come from "
            "a script, not a real model. Set ANTHROPIC_API_KEY and use --model anthropic:NAME "
            "for the real one."
        )
    observer: RunObserver = (
        HookNoticePrinter()
        if args.json
        else TerminalPrinter(show_cost=conversation.shows_cost, show_thinking=args.show_thinking)
    )
    ask = Ask(asked, images, choose_approver(args), observer)
    try:
        result = asyncio.run(_ask(manager, conversation, ask, termination))
    except (SessionBusy, ConfigError) as exc:  # another process runs it; a refused image
        say(str(exc))
        return EXIT_USAGE
    finally:
        manager.close()
    if args.json:
        payload = {"sessionId": conversation.session_id, **result.to_dict()}
        print(json_visible(json.dumps(payload, ensure_ascii=False)))
    else:
        print(f"session {conversation.session_id}", file=sys.stderr)
    return result.exit_code


@dataclass(frozen=True, slots=True)
class Ask:
    asked: AskedPrompt  # the prompt, expanded from its command file when it names one
    images: list[PromptImage]
    approver: Approver
    observer: RunObserver


async def _ask(
    manager: ConversationManager, conversation: Conversation, ask: Ask, termination: Termination
) -> RunResult:
    loop = asyncio.get_running_loop()
    # A termination signal cancels the run (killing a running command's process
    # group) and still lets it write its terminal event; the exit status is then 130.
    for signum in TERMINATING:
        loop.add_signal_handler(signum, termination, conversation)
    unwatch = conversation.watch_processes(tell_process)
    try:
        handle = await conversation.start(
            ask.asked.text, approver=ask.approver, observer=ask.observer, folder=Path.cwd(),
            command=ask.asked.command, images=ask.images,
        )  # fmt: skip
        for line in [*ask.asked.lines(), *handle.guidance.lines()]:
            say(line)
        return await handle.result()
    finally:
        for signum in TERMINATING:
            loop.remove_signal_handler(signum)
        # The run is over: a Ctrl-C from now on has nothing to abort, and must not
        # end in a KeyboardInterrupt traceback while the process winds down.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        unwatch()
        # Background processes live as long as the ask: stopped now, and said so.
        for stopped in await conversation.end_processes():
            say(f"stopped background process {stopped.id} as the ask ends: {stopped.command}")
        # MCP and language servers stop while the event loop runs.
        await manager.shutdown()


def tell_process(change: ProcessChange) -> None:
    """A background process that exits or is stopped during the ask, on stderr."""
    info = change.process
    if change.action == "exited":
        say(f"background process {info.id} exited (exit code {info.exit_code}): {info.command}")
    elif change.action == "stopped" and change.by != "model":
        say(f"background process {info.id} stopped ({change.by}): {info.command}")
