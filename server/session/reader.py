"""Reading a session log back, tolerant of the damage a crash can do.

A torn last line (kill -9 mid-write) is skipped silently: it is expected. A bad
line elsewhere is skipped with a warning. A newer schema version is refused,
because guessing at a format we do not know would rebuild the wrong state.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection
from pathlib import Path
from typing import Any

from agentls.session.events import SCHEMA_VERSION

logger = logging.getLogger(__name__)

_KIND_MARK = b'"kind":"'


class SessionFormatError(Exception):
    """The log was written by a newer agentls than this one."""


def read_events(path: Path, kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
    """All complete events of ``path`` in file order.

    With ``kinds``, lines whose kind is clearly another one are skipped before
    JSON parsing: listing hundreds of sessions then needs only a few lines each.
    """
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    last = len(lines) - 1
    events: list[dict[str, Any]] = []
    wanted = None if kinds is None else {k.encode() for k in kinds}
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if wanted is not None and _leading_kind(line) not in wanted:
            continue
        event = _parse(line)
        if event is None:
            if index == last and not complete:
                continue  # torn by a crash mid-write: expected, not worth a warning
            logger.warning("%s: skipping corrupt line %d", path, index + 1)
            continue
        version = event["v"]
        if version > SCHEMA_VERSION:
            raise SessionFormatError(
                f"{path}: line {index + 1} uses session log version {version}, but this "
                f"agentls reads up to version {SCHEMA_VERSION}; upgrade agentls to open it"
            )
        events.append(event)
    return events


def _parse(line: bytes) -> dict[str, Any] | None:
    """The event on ``line``, or None if it is not a well-formed event."""
    try:
        event = json.loads(line)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError both
        return None
    if not isinstance(event, dict):
        return None
    version = event.get("v")
    if not isinstance(version, int) or not isinstance(event.get("kind"), str):
        return None
    return event


def _leading_kind(line: bytes) -> bytes | None:
    # Our writer puts "kind" before the payload, so its first occurrence is the event's.
    start = line.find(_KIND_MARK)
    if start < 0:
        return None
    start += len(_KIND_MARK)
    end = line.find(b'"', start)
    return line[start:end] if end > 0 else None
