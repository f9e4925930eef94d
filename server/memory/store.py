"""The memory store: one file for the person's memories and one per project, under
agentls's state folder, never in the workspace.

A project is keyed by its git remote when it has one (so moving the clone keeps its
memory), else by its resolved root. A store that does not load is said and left as it
is: nothing is written over it.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from agentls.memory.records import (
    Confidence,
    MemoryFile,
    MemoryRecord,
    Scope,
    Source,
)
from agentls.workspace.atomic import replace_atomically
from agentls.workspace.redaction import mask_secrets

_REMOTE = re.compile(r'^\s*\[remote\s+"origin"\]\s*$')
_URL = re.compile(r"^\s*url\s*=\s*(\S+)\s*$")
MAX_CONTENT = 2000  # characters one memory may hold


class MemoryStoreError(Exception):
    """A store file is there but does not load (it is left as it is)."""


def now_utc() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def project_key(root: Path) -> str:
    """The project's key: its origin remote's URL when it has one, else its root."""
    remote = _origin_url(root)
    basis = f"remote:{remote}" if remote else f"root:{root.resolve()}"
    return hashlib.sha256(basis.encode()).hexdigest()[:24]


def _origin_url(root: Path) -> str | None:
    try:
        text = (root / ".git" / "config").read_text("utf-8", errors="replace")
    except OSError:
        return None
    in_origin = False
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            in_origin = bool(_REMOTE.match(line))
            continue
        match = _URL.match(line) if in_origin else None
        if match:
            return match.group(1).removesuffix(".git").rstrip("/")
    return None


@dataclass(frozen=True, slots=True)
class Loaded:
    records: tuple[MemoryRecord, ...]
    warnings: tuple[str, ...]


class MemoryStore:
    """The person's memories and those of one project."""

    def __init__(self, state_dir: Path, root: Path) -> None:
        self.folder = state_dir / "memory"
        self.root = root.resolve()
        self.paths: dict[Scope, Path] = {
            "user": self.folder / "user.json",
            "project": self.folder / "projects" / f"{project_key(root)}.json",
        }

    def load(self, now: datetime.datetime | None = None, *, expired: bool = False) -> Loaded:
        """Every record of both scopes (user first, then by creation), without the expired
        ones unless asked; a scope that does not load is a warning, the other still read."""
        moment = now or now_utc()
        found: list[MemoryRecord] = []
        warnings: list[str] = []
        for scope in ("user", "project"):
            try:
                records = self._read(scope).records
            except MemoryStoreError as exc:
                warnings.append(str(exc))
                continue
            found.extend(r for r in records if expired or not r.expired(moment))
        order = {"user": 0, "project": 1}
        found.sort(key=lambda r: (order[r.scope], r.created_at, r.id))
        return Loaded(tuple(found), tuple(warnings))

    def add(
        self,
        content: str,
        *,
        scope: Scope,
        source: Source,
        confidence: Confidence,
        expires_days: float | None = None,
        session: str | None = None,
        evidence: tuple[str, ...] = (),
        events: tuple[int, ...] = (),
        verified: bool = False,
        now: datetime.datetime | None = None,
    ) -> MemoryRecord:
        """Keep one memory (secrets masked). ValueError for empty or oversized content;
        MemoryStoreError when the scope's file is there but does not load."""
        text = content.strip()
        if not text:
            raise ValueError("a memory needs some text")
        if len(text) > MAX_CONTENT:
            raise ValueError(f"a memory holds at most {MAX_CONTENT} characters")
        if expires_days is not None and expires_days <= 0:
            raise ValueError("--expires takes a number of days above 0")
        moment = now or now_utc()
        masked, _ = mask_secrets(text)
        record = MemoryRecord(
            id=f"m-{secrets.token_hex(4)}",
            content=masked,
            scope=scope,
            source=source,
            confidence=confidence,
            created_at=moment,
            last_verified_at=moment if verified else None,
            expires_at=(moment + datetime.timedelta(days=expires_days) if expires_days else None),
            session=session,
            evidence=evidence,
            events=events,
        )
        with self._locked():
            current = self._read(scope)
            current.records.append(record)
            self._write(scope, current)
        return record

    def forget(self, memory_id: str) -> MemoryRecord | None:
        """Drop one memory by id; None when no scope holds it."""
        with self._locked():
            for scope in ("user", "project"):
                current = self._read(scope)
                kept = [r for r in current.records if r.id != memory_id]
                if len(kept) != len(current.records):
                    gone = next(r for r in current.records if r.id == memory_id)
                    current.records = kept
                    self._write(scope, current)
                    return gone
        return None

    def _read(self, scope: Scope) -> MemoryFile:
        path = self.paths[scope]
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return MemoryFile(root=str(self.root) if scope == "project" else None)
        except OSError as exc:
            raise MemoryStoreError(f"{path}: unreadable ({exc.strerror or exc})") from exc
        try:
            return MemoryFile.model_validate_json(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "the file"
            raise MemoryStoreError(
                f"{path} does not load ({where}: {first['msg']}); it is left as it is"
            ) from exc

    def _write(self, scope: Scope, data: MemoryFile) -> None:
        path = self.paths[scope]
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = data.model_dump_json(by_alias=True, exclude_none=True, indent=2) + "\n"
        replace_atomically(path, text)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time across processes (a read, a change, a write)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.folder / ".lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
