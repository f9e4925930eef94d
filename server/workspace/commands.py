"""A session's commands: where each runs, in the foreground to its end or in the
background until it is stopped, and the session's background processes.

Every command of a session runs in the session's sandbox (`session_sandbox.py`) when
bubblewrap works here; where that sandbox cannot run, in a sandbox of its own (the
same read-only control files, but its own network and /tmp); with the sandbox off or
missing, as it is, in its own process group (and where the sandbox is required, not
at all). Background or not, a command is the line its `CommandGrant` allows.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from agentls.contracts.processes import ProcessChange, ProcessInfo, ProcessRead, StoppedBy
from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.supervision.processes import (
    OutputSink,
    ProcessTable,
    TooManyProcesses,
    UnknownProcess,
)
from agentls.workspace import process, sandbox
from agentls.workspace.background import BackgroundCommand, start_background
from agentls.workspace.interface import CommandGrant, CommandResult
from agentls.workspace.sandbox import NoSandboxNotice, SandboxSettings
from agentls.workspace.session_sandbox import LAUNCHERS, SessionSandbox

log = logging.getLogger(__name__)

_OWN_SANDBOX_LAUNCHERS = 2  # bwrap, then its init, before the shell


@dataclass(frozen=True, slots=True)
class _Where:
    """How a command is started: its environment, the launchers before its shell."""

    env: dict[str, str]
    prefix: list[str] | None
    launchers: int
    sandbox: str  # "session", "own", "none"


class SessionCommands:
    """One session's commands and background processes (a `BackgroundProcesses`)."""

    def __init__(self, root: Path, settings: Callable[[], SandboxSettings]) -> None:
        self._root = root
        self._settings = settings
        self._notice = NoSandboxNotice()  # when the settings carry no session's notice
        self.sandbox = SessionSandbox()
        self.table = ProcessTable(settings().max_processes)

    # --- where a command runs ----------------------------------------------------

    def own_setup(self, control_writable: bool = False) -> tuple[dict[str, str], list[str] | None]:
        """The environment and the sandbox of a command run alone (``control_writable``: a
        person approved a run that writes control files). Walks the workspace: on a
        worker thread."""
        settings = self._settings()
        env = sandbox.command_environment(settings, os.environ)
        prefix = sandbox.sandbox_prefix(
            self._root, settings, env.get("PATH", ""), control_writable=control_writable
        )
        return env, prefix

    async def _where(self, control_writable: bool) -> _Where:
        settings = self._settings()
        env = sandbox.command_environment(settings, os.environ)
        if settings.enabled and sandbox.bwrap_problem() is None:
            prefix = await self.sandbox.prefix(
                self._root, settings, env.get("PATH", ""), control_writable=control_writable
            )
            if not self.table.running():
                await self.sandbox.retire_earlier()
            if prefix is not None:
                return _Where(env, prefix, LAUNCHERS, "session")
        env, own = await asyncio.to_thread(self.own_setup, control_writable)
        if own is not None:
            return _Where(env, own, _OWN_SANDBOX_LAUNCHERS, "own")
        if settings.required:
            why = sandbox.bwrap_problem() or "bubblewrap is not on PATH"
            raise ToolError(
                ErrorCode.PERMISSION_DENIED,
                f"commands run only in the sandbox here (sandbox: required), and it cannot "
                f"start: {why}; the command did not run",
            )
        return _Where(env, None, 0, "none")

    def _unsandboxed_note(self, where: _Where) -> str | None:
        """Told once per session (across processes): its commands run without a sandbox."""
        settings = self._settings()
        notice = settings.notice or self._notice
        if where.sandbox != "none" or not settings.enabled or notice.given:
            return None
        problem = sandbox.bwrap_problem()
        log.warning("commands run without a sandbox: %s", problem)
        note = (
            f"[note: commands in this session run without a sandbox ({problem}); "
            "install bubblewrap, or set sandbox to off to silence this]"
        )
        return note if notice.give(note) else None

    # --- in the foreground ------------------------------------------------------

    async def run(self, grant: CommandGrant, timeout_seconds: float, limit: int) -> CommandResult:
        where = await self._where(grant.control_writable)
        result = await process.run_shell(
            grant.line, self._root, timeout_seconds, limit, where.prefix or (), where.env,
            launchers=where.launchers,
        )  # fmt: skip
        note = self._unsandboxed_note(where)
        return result if note is None else replace(result, output=f"{result.output}\n{note}")

    # --- in the background ------------------------------------------------------

    async def start(self, grant: CommandGrant, wait_seconds: float) -> ProcessRead:
        """Start the granted line in the background; what it wrote in its first
        ``wait_seconds`` (or until it exited)."""
        self.table.limit = self._settings().max_processes
        where = await self._where(grant.control_writable)

        async def launch(sink: OutputSink) -> BackgroundCommand:
            return await start_background(
                grant.line, self._root, sink, where.prefix or (), where.env,
                launchers=where.launchers,
            )  # fmt: skip

        try:
            tracked = await self.table.start(grant.judged, grant.call, where.sandbox, launch)
        except TooManyProcesses as exc:
            raise ToolError(ErrorCode.INVALID_INPUT, str(exc)) from None
        await tracked.ended_within(wait_seconds)
        read = await tracked.read()
        note = self._unsandboxed_note(where)
        return read if note is None else replace(read, output=f"{read.output}\n{note}")

    async def read(self, pid: str, wait_seconds: float = 0.0) -> ProcessRead:
        try:
            return await self.table.read(pid, wait_seconds)
        except UnknownProcess as exc:
            raise ToolError(ErrorCode.NOT_FOUND, str(exc)) from None

    async def stop(self, pid: str, by: StoppedBy) -> ProcessRead:
        try:
            return await self.table.stop(pid, by)
        except UnknownProcess as exc:
            raise ToolError(ErrorCode.NOT_FOUND, str(exc)) from None

    async def stop_all(
        self, by: StoppedBy, which: Callable[[ProcessInfo], bool] | None = None
    ) -> list[ProcessInfo]:
        return await self.table.stop_all(by, which)

    def snapshot(self) -> list[ProcessInfo]:
        return self.table.processes()

    def watch(self, listener: Callable[[ProcessChange], None]) -> Callable[[], None]:
        return self.table.watch(listener)

    def skip_to(self, number: int) -> None:
        self.table.skip_to(number)

    # --- the end ---------------------------------------------------------------

    async def aclose(self) -> list[ProcessInfo]:
        """Stop every background process (the session ends), then the session's sandbox;
        the processes stopped."""
        stopped = await self.table.stop_all("session end")
        await self.sandbox.aclose()
        return stopped

    def kill(self) -> None:
        """End every process and the sandbox at once (no event loop left)."""
        self.table.kill_all()
        self.sandbox.kill()
