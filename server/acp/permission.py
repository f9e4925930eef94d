"""session/request_permission: the four ACP answers and what each one means here.

allow_always adds the narrowest rules (the policy's suggestion) for the rest of
the session; reject_always adds the same rules as session deny rules; both are
logged, so the session keeps them when it is loaded again. A call no rule can
cover (an unresolved line, a control file) is offered no "always": a client that
answers one anyway gets it once (allow once, reject once), never a rule wider
than the call. A ``cancelled`` outcome (the client cancelled the prompt) aborts
the run, and so does a request the client answered with an error (acpx's
Ctrl-C at its prompt, a broken connection): nobody said no, so the model is not
told so; the prompt ends ``cancelled``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum
from typing import Protocol

from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from agentls.contracts.decisions import ApprovalAnswer
from agentls.permissions.rules import Rule

log = logging.getLogger(__name__)


class Choice(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    REJECT_ONCE = "reject_once"
    REJECT_ALWAYS = "reject_always"
    CANCELLED = "cancelled"
    UNANSWERED = "unanswered"  # the request failed: the prompt is cancelled too

    @property
    def allows(self) -> bool:
        return self in (Choice.ALLOW_ONCE, Choice.ALLOW_ALWAYS)

    @property
    def ends_prompt(self) -> bool:
        return self in (Choice.CANCELLED, Choice.UNANSWERED)


UNANSWERED = "the client failed to answer the permission request, so the prompt was cancelled"


# What each choice answers; the rest (cancelled, unanswered) are a "no" and end the prompt.
ANSWERS = {
    Choice.ALLOW_ONCE: ApprovalAnswer.ALLOW_ONCE,
    Choice.ALLOW_ALWAYS: ApprovalAnswer.ALLOW_ALWAYS,
    Choice.REJECT_ONCE: ApprovalAnswer.DENY,
    Choice.REJECT_ALWAYS: ApprovalAnswer.DENY_ALWAYS,
}
_ONCE = {Choice.ALLOW_ALWAYS: Choice.ALLOW_ONCE, Choice.REJECT_ALWAYS: Choice.REJECT_ONCE}


def answer_of(choice: Choice) -> ApprovalAnswer:
    return ANSWERS.get(choice, ApprovalAnswer.DENY)


def options(rules: Sequence[Rule]) -> list[PermissionOption]:
    allow_once = PermissionOption(option_id=Choice.ALLOW_ONCE, name="Allow once", kind="allow_once")
    reject_once = PermissionOption(option_id=Choice.REJECT_ONCE, name="Reject", kind="reject_once")
    if not rules:  # no rule can cover the call: nothing to remember
        return [allow_once, reject_once]
    shown = ", ".join(str(r) for r in rules)
    return [
        allow_once,
        PermissionOption(
            option_id=Choice.ALLOW_ALWAYS, name=f"Always allow {shown}", kind="allow_always"
        ),
        reject_once,
        PermissionOption(
            option_id=Choice.REJECT_ALWAYS, name=f"Always reject {shown}", kind="reject_always"
        ),
    ]


class PermissionAsker:
    """Asks the client about one call, and keeps "always" answers for the session."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        flush: Callable[[], Awaitable[None]],
        on_cancelled: Callable[[], object],
    ) -> None:
        self.client = client
        self.session_id = session_id
        self._flush = flush
        self._on_cancelled = on_cancelled

    async def ask(self, tool_call: ToolCallUpdate, rules: Sequence[Rule]) -> Choice:
        await self._flush()  # the tool call and its diff reach the client first
        try:
            response = await self.client.request_permission(
                self.session_id, tool_call, options(rules)
            )
        except Exception as exc:  # not the person's no: the prompt ends as cancelled
            log.warning("session %s: %s (%s)", self.session_id, UNANSWERED, exc)
            self._on_cancelled()
            return Choice.UNANSWERED
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            self._on_cancelled()
            return Choice.CANCELLED
        try:
            choice = Choice(outcome.option_id)
        except ValueError:
            log.warning("unknown permission option %r; counted as a rejection", outcome.option_id)
            return Choice.REJECT_ONCE
        # An "always" no rule can cover is said as once: the answer counts once anyway.
        return choice if rules else _ONCE.get(choice, choice)


class SessionRules(Protocol):
    """The conversation, as an edit's review needs it: whether the edit needs one (and
    what "always" would add), and where the answer goes, which keeps and logs what an
    "always" means."""

    def review_rules(self, tool: str, path: str) -> list[Rule] | None: ...

    def take_answer(self, answer: ApprovalAnswer, rules: Sequence[Rule]) -> None: ...
