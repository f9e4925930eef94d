"""A session's background processes as the conversation keeps them: each start, exit and
stop logged and told to the faces watching, stopped by a person, at the end of the
session, or before an undo of the ask that started them."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

from agentls.contracts.processes import ProcessChange, ProcessInfo, ProcessRead, StoppedBy
from agentls.session import events as ev
from agentls.workspace.interface import BackgroundProcesses

log = logging.getLogger(__name__)

ProcessListener = Callable[[ProcessChange], None]


class SessionProcesses:
    def __init__(self, processes: BackgroundProcesses, write: Callable[[ev.ProcessEvent], None]):
        self._processes = processes
        self._write = write  # into the session's log, holding its lock
        self._listeners: list[ProcessListener] = []
        self._unwatch = processes.watch(self._changed)

    def watch(self, listener: ProcessListener) -> Callable[[], None]:
        """Tell ``listener`` (a face) each start, exit and stop; the returned function stops."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def listed(self) -> list[ProcessInfo]:
        return self._processes.snapshot()

    def running(self) -> list[ProcessInfo]:
        return [p for p in self._processes.snapshot() if p.state == "running"]

    async def stop(self, pid: str, by: StoppedBy = "person") -> ProcessRead:
        """ToolError(not_found) for an id the session does not have."""
        return await self._processes.stop(pid, by)

    async def stop_all(self, by: StoppedBy) -> list[ProcessInfo]:
        return await self._processes.stop_all(by)

    async def stop_started_by(
        self, turns: Collection[tuple[str | None, int | None]], by: StoppedBy
    ) -> list[ProcessInfo]:
        """Stop the processes these (run, turn) started (turn None: any turn of the run)."""

        def started_there(process: ProcessInfo) -> bool:
            origin = process.origin
            return any(
                run is not None and origin.run_id == run and turn in (None, origin.turn)
                for run, turn in turns
            )

        return await self._processes.stop_all(by, started_there)

    def continue_ids(self, last: int) -> None:
        """Ids go on after the last the session's log used."""
        self._processes.skip_to(last)

    def close(self) -> None:
        self._unwatch()
        self._listeners.clear()

    def _changed(self, change: ProcessChange) -> None:
        info = change.process
        started = change.action == "started"
        event = ev.ProcessEvent(
            run=info.origin.run_id if started else None,
            turn=info.origin.turn if started else None,
            id=info.id, action=change.action, command=info.command,
            call_id=info.origin.call_id, exit_code=info.exit_code, by=change.by,
            sandbox=info.sandbox,
        )  # fmt: skip
        try:
            self._write(event)
        except Exception:  # observability never breaks a run
            log.exception("background process %s %s not logged", info.id, change.action)
        for listener in list(self._listeners):
            try:
                listener(change)
            except Exception:
                log.exception("a face did not take background process %s", info.id)
