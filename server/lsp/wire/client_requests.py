"""Server-to-client requests that never hang a run and never pop errors.

Every request is shielded (a cancelled run must not leave a future that a late
reply would trip over) and bounded in time; an error answer, such as
MethodNotFound from a client without the feature, becomes None.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from agentls.contracts.waiting import within

log = logging.getLogger(__name__)
T = TypeVar("T")


async def ask_client(
    request: Awaitable[T], timeout: float, what: str, *, errors: list[Exception] | None = None
) -> T | None:
    """Await a client reply; None on error, timeout or when the editor says nothing.

    An error answer is also appended to ``errors`` when given: the caller may
    take it as "this editor cannot do that" rather than as "no".
    """
    future = asyncio.ensure_future(request)
    try:
        return await within(asyncio.shield(future), timeout)
    except TimeoutError:
        log.info("no answer to %s within %g s", what, timeout)
        future.add_done_callback(_drain)
        return None
    except asyncio.CancelledError:
        future.add_done_callback(_drain)
        raise
    except Exception as exc:  # MethodNotFound and friends: the client cannot do it
        log.info("%s failed: %s", what, exc)
        if errors is not None:
            errors.append(exc)
        return None


def _drain(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # mark it retrieved: a late error is not worth a warning
