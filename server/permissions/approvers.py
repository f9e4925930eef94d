"""Approvers answer the questions the permission gate cannot decide alone."""

from __future__ import annotations

from typing import Protocol

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.plans import NO_PERSON, PlanAnswer, PlanProposal


class Approver(Protocol):
    # Whether its answers are a person's, given after seeing the call: then a command
    # runs as they saw it; an automatic yes runs the gate's own spelling of the line.
    person: bool
    # Why its last answer was no, in a few words for the model ("" when it has none).
    reason: str

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer: ...

    async def review_plan(self, proposal: PlanProposal) -> PlanAnswer:
        """The person's word on a plan (plan mode's way out): switch to default or
        accept-edits, or keep planning; ``NO_PERSON`` when no one answered."""
        ...


class AutoApprover:
    """``--yes``: approves every question a rule or the mode asks (deny rules were
    applied before asking), but never one only a person may answer: a command
    the analysis cannot resolve while deny rules exist, or a control file."""

    reason = ""
    person = False

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        if request.person_only:
            self.reason = f"--yes does not answer this; {request.reason}"
            return ApprovalAnswer.DENY
        return ApprovalAnswer.ALLOW_ONCE

    async def review_plan(self, proposal: PlanProposal) -> PlanAnswer:
        return NO_PERSON  # --yes never leaves plan mode: that is a person's word


class DenyAllApprover:
    """No person to ask (no TTY, no --yes): every question is answered no."""

    reason = "no one to ask: stdin is not a terminal and --yes was not given"
    person = False

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer.DENY

    async def review_plan(self, proposal: PlanProposal) -> PlanAnswer:
        return NO_PERSON
