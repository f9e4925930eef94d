"""A session's background processes as `agentls/event` notifications of kind `process`:
each start, exit and stop, told as it happens (also between runs)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentls.contracts.processes import ProcessChange
from agentls.protocol.events import EVENT_METHOD, ProcessEvent

if TYPE_CHECKING:
    from agentls.conversation.one_session import Conversation

log = logging.getLogger(__name__)


def tell_processes(notify: Callable[[str, Any], None], conversation: Conversation) -> None:
    """Send the session's process changes to the editor (through ``notify``) from now on."""
    session_id = conversation.session_id

    def changed(change: ProcessChange) -> None:
        info = change.process
        event = ProcessEvent(
            session_id=session_id, run_id=info.origin.run_id or "", turn=info.origin.turn or 0,
            id=info.id, action=change.action, command=info.command, state=info.state,
            exit_code=info.exit_code, by=change.by, sandbox=info.sandbox,
        )  # fmt: skip
        log.info("background process %s of session %s %s", info.id, session_id, change.action)
        notify(EVENT_METHOD, event.wire())

    conversation.watch_processes(changed)
