"""Where sessions live: one flat JSONL file per session under the state dir."""

from __future__ import annotations

import logging
import os
import re
import secrets
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.labels import request_words
from agentls.session.lock import SessionClaim
from agentls.session.log import SessionLog
from agentls.session.reader import SessionFormatError, read_events
from agentls.session.reducer import reduce
from agentls.session.state import SessionState
from agentls.workspace import control

logger = logging.getLogger(__name__)

_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,128}")
_PROMPT_WIDTH = 80
# Enough to list a session without parsing its (large) messages and observations.
_SUMMARY_KINDS = frozenset(
    {ev.SESSION_STARTED, ev.RUN_STARTED, ev.USAGE, ev.RUN_FINISHED, ev.RUN_CLOSED}
)


class SessionNotFound(KeyError):
    """No session with that id: none in the state folder ``sessions_dir`` (raised by the
    store), or none open in this process (``sessions_dir`` None: raised by the
    ConversationManager). Its one wording is worded here; every face shows it as it is
    (the CLI with exit 2, the language server and ACP as an invalid-params error)."""

    def __init__(self, session_id: str, sessions_dir: Path | None = None) -> None:
        super().__init__(session_id)
        self.session_id = session_id
        self.sessions_dir = sessions_dir

    def __str__(self) -> str:  # KeyError would show the message in quotes
        where = "open here" if self.sessions_dir is None else f"in {self.sessions_dir}"
        return f"no session {self.session_id!r} {where}"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    created_at: str
    workspace: str
    model: str
    first_prompt: str  # one line, cut to about 80 characters
    outcome: str  # the last run's terminal reason, "unfinished", or "no runs"
    runs: int
    cost_usd: float | None


def default_state_dir() -> Path:
    return control.state_dir()


def new_session_id() -> str:
    """``YYYYMMDD-HHMMSS-xxxxxx`` (UTC): sorts by creation time, unique by its random tail."""
    return f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(3)}"


class SessionStore:
    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.sessions_dir = state_dir / "sessions"
        # Each listed session's summary, by its file's size and change time: a session
        # picker lists every session again and again, and most of them are idle.
        self._summaries: dict[Path, tuple[tuple[int, int], float, SessionInfo]] = {}

    def path_for(self, session_id: str) -> Path:
        if not _ID_PATTERN.fullmatch(session_id):
            raise ValueError(
                f"invalid session id {session_id!r}: use only letters, digits, '-' and '_'"
            )
        return self.sessions_dir / f"{session_id}.jsonl"

    def stored_path(self, session_id: str) -> Path:
        """The log of a stored session: ValueError for an id that is none, SessionNotFound
        when there is no such log (a disk call)."""
        path = self.path_for(session_id)
        if not path.exists():
            raise SessionNotFound(session_id, self.sessions_dir)
        return path

    def claim(self, session_id: str, face: str) -> SessionClaim:
        """The one-writer lock of a session, for ``face`` ("cli", "lsp", "acp"); not taken yet:
        ``with store.claim(id, "acp"):`` or ``acquire()``/``release()``. SessionHeld names
        the other holder."""
        return SessionClaim(self.path_for(session_id), face)

    def create(
        self, workspace: Path, model: str, *, resolved: bool = False
    ) -> tuple[str, SessionLog]:
        """A new session of ``workspace`` (``resolved``: the caller resolved it already)."""
        while True:
            session_id = new_session_id()
            path = self.sessions_dir / f"{session_id}.jsonl"  # a valid id: no check needed
            if not os.path.exists(path):
                break
        log = SessionLog(path, next_seq=1)
        log.append(
            ev.SessionStarted(
                session_id=session_id,
                workspace=str(workspace) if resolved else os.path.realpath(workspace),
                model=model,
                created_at=datetime.now().astimezone().isoformat(timespec="seconds"),
            )
        )
        log.turn_boundary()
        return session_id, log

    def open(self, session_id: str) -> tuple[SessionLog, SessionState]:
        """The session's log, reopened for appending, and its state folded from it."""
        path = self.path_for(session_id)
        try:
            events = read_events(path)
        except FileNotFoundError:
            raise SessionNotFound(session_id, self.sessions_dir) from None
        state = reduce(events)
        return SessionLog(path, next_seq=state.last_seq + 1), state

    def list(self, workspace: Path | None = None) -> list[SessionInfo]:
        """Stored sessions, newest first; only those of ``workspace`` when given."""
        wanted = str(workspace.resolve()) if workspace is not None else None
        found: list[tuple[float, SessionInfo]] = []
        try:
            paths = [p for p in self.sessions_dir.iterdir() if p.suffix == ".jsonl"]
        except FileNotFoundError:
            return []
        for path in paths:
            summary = self._summary(path)
            if summary is not None and (wanted is None or summary[1].workspace == wanted):
                found.append(summary)
        found.sort(key=lambda pair: (pair[0], pair[1].id), reverse=True)
        return [info for _, info in found]

    def _summary(self, path: Path) -> tuple[float, SessionInfo] | None:
        """When the session started and its summary; read again only when the file changed."""
        try:
            stat = path.stat()
        except OSError:
            return None  # gone since the folder was read
        version = (stat.st_size, stat.st_mtime_ns)
        cached = self._summaries.get(path)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        try:
            events = read_events(path, _SUMMARY_KINDS)
        except (OSError, SessionFormatError) as exc:
            logger.warning("skipping session %s: %s", path.name, exc)
            return None
        if not events:
            return None
        info = _summarise(path.stem, events)
        self._summaries[path] = (version, events[0].ts, info)
        return events[0].ts, info


def _summarise(session_id: str, events: list[SessionEvent]) -> SessionInfo:
    state = reduce(events)
    runs = state.runs
    outcome = runs[-1].outcome if runs else "no runs"
    first_prompt = _one_line(request_words(runs[0].prompt)) if runs else ""
    return SessionInfo(
        id=session_id,
        created_at=state.created_at,
        workspace=state.workspace,
        model=state.model,
        first_prompt=first_prompt,
        outcome=outcome,
        runs=len(runs),
        cost_usd=state.cost_usd,
    )


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    if len(line) <= _PROMPT_WIDTH:
        return line
    return line[: _PROMPT_WIDTH - 1].rstrip() + "…"
