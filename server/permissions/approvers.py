"""Approvers answer the questions the permission gate cannot decide alone."""

from __future__ import annotations

from typing import Protocol

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest


class Approver(Protocol):
    # Whether its answers are a person's, given after seeing the call: then a command
    # runs as they saw it; an automatic yes runs the gate's own spelling of the line.
    person: bool
    # Why its last answer was no, in a few words for the model ("" when it has none).
    reason: str

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer: ...


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


class DenyAllApprover:
    """No person to ask (no TTY, no --yes): every question is answered no."""

    reason = "no one to ask: stdin is not a terminal and --yes was not given"
    person = False

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer.DENY
