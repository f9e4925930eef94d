"""SessionLink: what an `LspWorkspace` knows of the session it serves.

A conversation is opened with its workspace, and only then has a session id
and a permission policy; each run has its own listener for edit events. The
face makes the link before the workspace, binds it once the conversation is
open and attaches each run's listener, so the workspace is never rewired.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from agentls.permissions.modes import Mode

EditListener = Callable[[str, dict[str, Any]], None]


class ModeSource(Protocol):
    """The permission policy, as far as reviews need it."""

    @property
    def mode(self) -> Mode: ...


class SessionLink:
    def __init__(
        self,
        session_id: str = "",
        policy: ModeSource | None = None,
        on_edit: EditListener | None = None,
    ) -> None:
        self.session_id = session_id
        self.policy = policy
        self._listener = on_edit

    def bind(self, session_id: str, policy: ModeSource) -> None:
        """The conversation is open: its id and its policy."""
        self.session_id = session_id
        self.policy = policy

    def attach(self, listener: EditListener | None) -> None:
        """The run now going on hears of edits (None: nobody)."""
        self._listener = listener

    @property
    def listener(self) -> EditListener | None:
        return self._listener

    @property
    def mode(self) -> Mode:
        return self.policy.mode if self.policy is not None else Mode.DEFAULT

    def edit(self, kind: str, payload: dict[str, Any]) -> None:
        if self._listener is not None:
            self._listener(kind, payload)
