"""SessionLink: what an `LspWorkspace` knows of the session it serves.

A conversation is opened with its workspace, and only then has a session id
and a permission policy; each run has its own listener for edit events. The
face makes the link before the workspace, binds it once the conversation is
open and attaches each run's listener, so the workspace is never rewired.
Whether an edit goes to the person's review is the policy's word, never the face's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from agentls.contracts.running import running_call

EditListener = Callable[[str, dict[str, Any]], None]


class ReviewPolicy(Protocol):
    """The permission policy, as far as reviews need it."""

    def needs_review(self, tool: str, path: str) -> bool: ...


class SessionLink:
    def __init__(
        self,
        session_id: str = "",
        policy: ReviewPolicy | None = None,
        on_edit: EditListener | None = None,
    ) -> None:
        self.session_id = session_id
        self.policy = policy
        self._listener = on_edit

    def bind(self, session_id: str, policy: ReviewPolicy) -> None:
        """The conversation is open: its id and its policy."""
        self.session_id = session_id
        self.policy = policy

    def attach(self, listener: EditListener | None) -> None:
        """The run now going on hears of edits (None: nobody)."""
        self._listener = listener

    @property
    def listener(self) -> EditListener | None:
        return self._listener

    def needs_review(self, *paths: str) -> bool:
        """Whether the person must see an edit of ``paths`` before it lands: the policy's
        word for the tool making it (rules name tools), for each path; unbound: yes."""
        if self.policy is None:
            return True
        call = running_call()
        tool = call.name if call is not None else "write_file"
        return any(self.policy.needs_review(tool, path) for path in paths)

    def edit(self, kind: str, payload: dict[str, Any]) -> None:
        if self._listener is not None:
            self._listener(kind, payload)
