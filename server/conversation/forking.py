"""Fork: a new session whose history is another's, up to (before) one of its asks or whole.

The log is made by `session/forking.py` (the conversation copied, the file history left
to the original); nothing in the workspace changes. A fork before ask N copies only what
no run will change again, so it needs no lock; a whole fork takes the session's lock for
the moment of the copy, so no run is copied half written.
"""

from __future__ import annotations

import asyncio

from agentls.session.store import SessionNotFound, SessionStore


async def fork_stored(
    store: SessionStore, session_id: str, before_ask: int | None, *, face: str
) -> str:
    """The fork's id (the copy made on a thread). SessionNotFound; SessionHeld, naming the
    holder, for a whole fork of a session another process is running; ForkRefused."""
    return await asyncio.to_thread(_fork, store, session_id, before_ask, face)


def _fork(store: SessionStore, session_id: str, before_ask: int | None, face: str) -> str:
    if before_ask is not None:  # what came before an ask no longer changes
        return store.fork(session_id, before_ask)
    if not store.path_for(session_id).exists():
        raise SessionNotFound(session_id, store.sessions_dir)
    claim = store.claim(session_id, face)
    try:
        claim.acquire_now()  # no run of another process is half written
        return store.fork(session_id, None)
    finally:
        claim.close()
