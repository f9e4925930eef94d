"""Permission decisions the runtime makes and the approval questions it asks."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from agentls.contracts.tooling import Risk
from agentls.contracts.values import value


class Verdict(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class ApprovalAnswer(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"  # for the rest of the session
    ALLOW_ALWAYS_WORKSPACE = "allow_always_workspace"  # saved in the workspace settings
    DENY = "deny"
    DENY_ALWAYS = "deny_always"  # denied, and the same calls for the rest of the session

    @property
    def allows(self) -> bool:
        return self not in (ApprovalAnswer.DENY, ApprovalAnswer.DENY_ALWAYS)

    @property
    def remembers(self) -> bool:
        """An "always allow" answer: the session (or the workspace) keeps its rules."""
        return self in (ApprovalAnswer.ALLOW_ALWAYS, ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE)

    @property
    def denies_always(self) -> bool:
        return self is ApprovalAnswer.DENY_ALWAYS

    def covering(self, rules: Sequence[object]) -> ApprovalAnswer:
        """This answer to a call ``rules`` cover (the policy's suggestion): an "always"
        to a call no rule can cover counts once, never as a rule wider than the call."""
        if rules or self in (ApprovalAnswer.ALLOW_ONCE, ApprovalAnswer.DENY):
            return self
        return ApprovalAnswer.DENY if self.denies_always else ApprovalAnswer.ALLOW_ONCE


@value
class PolicyDecision:
    """What the rules and the mode say about one call, before any person is asked."""

    verdict: Verdict
    source: str  # e.g. "rule deny:run_command(rm *)", "mode plan", "default for write"
    stop_run: bool = False  # a deny rule marked as stopping ends the run
    # Only a person may say yes: automatic approvers (--yes) deny instead.
    person_only: bool = False
    # A command line as the gate read it, spelled so bash reads it the same way: what
    # runs when rules or an automatic approver, not a person, let it run (None: the
    # line was not fully read; it runs as written only where nothing judged it).
    runs: str | None = None
    # The line writes control files: when a person allows it, its run may write them.
    writes_control: bool = False


@value
class ApprovalRequest:
    """One question to a person: may this call run?"""

    call_id: str
    tool: str
    risk: Risk
    summary: str  # one line: the command, or the path and what changes
    detail: str  # the full command or diff
    suggested_rule: str  # what "always allow" would add, for a person to read
    rules: tuple[str, ...] = ()  # the same as rule strings, one per uncovered command
    reason: str = ""  # why the gate asks, for the person to read
    person_only: bool = False  # see PolicyDecision.person_only


@value
class RuntimeDecision:
    """The final word on one call, as written to the log."""

    call_id: str
    verdict: Verdict  # allow or deny after any question was answered
    source: str
    answer: ApprovalAnswer | None = None
