"""Reading a session log back as events, tolerant of the damage a crash can do.

Each line is parsed into `SessionEvent`; version 1 lines are upgraded first. A
torn last line (kill -9 mid-write) is skipped silently: it is expected. A bad
line elsewhere is skipped with a warning, and a kind this agentls does not
know (written by a newer one at the same version) is skipped quietly. A newer
schema version is refused, because guessing at a format we do not know would
rebuild the wrong state.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Collection
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentls.session.events import SCHEMA_VERSION, SESSION_EVENTS, SessionEvent
from agentls.session.upgrade import upgrade_v1

logger = logging.getLogger(__name__)

_KIND_MARK = b'"kind":"'
_CURRENT = b'{"v":%d,' % SCHEMA_VERSION


class SessionFormatError(Exception):
    """The log was written by a newer agentls than this one."""


class _Unreadable(Exception):
    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet


def read_events(path: Path, kinds: Collection[str] | None = None) -> list[SessionEvent]:
    """All readable events of ``path`` in file order.

    With ``kinds``, lines whose kind is clearly another one are skipped before
    parsing: listing hundreds of sessions then needs only a few lines each.
    """
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    last = len(lines) - 1
    events: list[SessionEvent] = []
    wanted = None if kinds is None else {k.encode() for k in kinds}
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if wanted is not None and _leading_kind(line) not in wanted:
            continue
        try:
            events.append(parse_line(line))
        except _Unreadable as exc:
            if exc.quiet or (index == last and not complete):
                continue  # torn by a crash mid-write: expected, not worth a warning
            logger.warning("%s: skipping unreadable line %d", path, index + 1)
        except SessionFormatError as exc:
            raise SessionFormatError(f"{path}: line {index + 1} {exc}") from None
    return events


def parse_line(line: bytes) -> SessionEvent:
    """One line as its event; raises _Unreadable, or SessionFormatError for a newer version."""
    if line.startswith(_CURRENT):  # today's lines: parsed and validated in one step
        try:
            return SESSION_EVENTS.validate_json(line)
        except ValidationError as exc:
            if _unknown_kind(exc):
                raise _Unreadable(quiet=True) from None
            # Python's parser also takes what the fast one refuses (a lone surrogate's escape).
    return _from_dict(_parse(line))


def parse_event(event: dict[str, Any]) -> SessionEvent:
    """An event given as a JSON object, of any version this agentls reads (not changed)."""
    try:
        return _from_dict(copy.deepcopy(event))
    except _Unreadable:
        raise ValueError(f"not a readable session event: {str(event)[:200]}") from None


def _from_dict(event: Any) -> SessionEvent:
    if (
        not isinstance(event, dict)
        or not isinstance(event.get("v"), int)
        or not isinstance(event.get("kind"), str)
    ):
        raise _Unreadable
    version = event["v"]
    if version > SCHEMA_VERSION:
        raise SessionFormatError(
            f"uses session log version {version}, but this agentls reads up to version "
            f"{SCHEMA_VERSION}; upgrade agentls to open it"
        )
    if version < SCHEMA_VERSION:
        event = upgrade_v1(event)
    try:
        return SESSION_EVENTS.validate_python(event)
    except ValidationError as exc:
        raise _Unreadable(_unknown_kind(exc)) from None


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError both
        raise _Unreadable from None


def _unknown_kind(exc: ValidationError) -> bool:
    return any(error["type"] == "union_tag_invalid" for error in exc.errors())


def _leading_kind(line: bytes) -> bytes | None:
    # Our writer puts "kind" before the payload, so its first occurrence is the event's.
    start = line.find(_KIND_MARK)
    if start < 0:
        return None
    start += len(_KIND_MARK)
    end = line.find(b'"', start)
    return line[start:end] if end > 0 else None
