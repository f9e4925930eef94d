"""A context window a model server reported, and where that came from."""

from __future__ import annotations

from agentls.contracts.values import value


@value
class ServerWindow:
    tokens: int
    source: str  # e.g. "llama.cpp /props at http://127.0.0.1:8080/v1"
    remembered: str | None = None  # the day it was learnt, when read back from the state folder
