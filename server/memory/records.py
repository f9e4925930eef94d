"""One remembered fact and where it came from."""

from __future__ import annotations

import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

Scope = Literal["user", "project"]
Source = Literal["explicit_user_rule", "verified_observation", "agent_summary"]
Confidence = Literal["low", "medium", "high"]
SCOPES: tuple[Scope, ...] = ("user", "project")
# Not verified for this long: shown to the model as possibly stale.
STALE_AFTER = datetime.timedelta(days=30)


class MemoryRecord(BaseModel):
    model_config = ConfigDict(
        extra="ignore", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    id: str
    content: str
    scope: Scope
    source: Source
    confidence: Confidence
    created_at: datetime.datetime
    last_verified_at: datetime.datetime | None = None
    expires_at: datetime.datetime | None = None
    # For what the model proposed: the session, the tool calls it named as evidence and
    # the log events (seq) of those calls' observations.
    session: str | None = None
    evidence: tuple[str, ...] = ()
    events: tuple[int, ...] = ()

    def expired(self, now: datetime.datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    def stale(self, now: datetime.datetime) -> bool:
        return now - (self.last_verified_at or self.created_at) > STALE_AFTER


class MemoryFile(BaseModel):
    """A store file: one scope's records (a project's, with the root it was made for)."""

    model_config = ConfigDict(extra="ignore", alias_generator=to_camel, populate_by_name=True)

    version: int = 1
    root: str | None = None
    records: list[MemoryRecord] = []
