"""A `PreToolUse` hook's answer weighed against the gate's decision: a hook tightens, and
never outranks the rules.

Deny denies. Ask (and a hook that failed, whose check did not happen) turns an allowed
call into a question only a person answers. Allow weighs as much as an allow rule naming
exactly this call and no more: the policy decides again with that rule added, so it
never passes a deny rule, a control file, a person-only decision or a line the gate
could not resolve, and a call no rule could cover still asks.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agentls.contracts.decisions import PolicyDecision, Verdict
from agentls.hooks.engine import ToolVerdict
from agentls.permissions.policy import PermissionPolicy
from agentls.workspace.interface import ToolDefinition


def weigh(
    policy: PermissionPolicy,
    tool: ToolDefinition[Any],
    subject: str,
    decision: PolicyDecision,
    hooks: ToolVerdict,
) -> PolicyDecision:
    """The decision once the hooks' answer is taken into account (``decision`` is the
    gate's, never a deny: a denied call runs no hook)."""
    if hooks.permission == "deny":
        return PolicyDecision(Verdict.DENY, hooks.source)
    if hooks.permission == "ask":
        source = hooks.source if decision.verdict is Verdict.ALLOW else (
            f"{decision.source}; {hooks.source}"
        )  # fmt: skip
        return dataclasses.replace(decision, verdict=Verdict.ASK, source=source, person_only=True)
    if hooks.permission != "allow" or decision.verdict is not Verdict.ASK:
        return decision
    if tool.more_subjects is not None:
        return decision  # it writes several paths: one rule for the call cannot name them all
    rules = policy.suggested_rules(tool.name, tool.subject_kind, subject)
    if not rules:
        return decision  # no rule could ever allow this call
    widened = dataclasses.replace(policy, session_allow=[*policy.session_allow, *rules])
    again = widened.evaluate(tool.name, tool.risk, tool.subject_kind, subject)
    if again.verdict is not Verdict.ALLOW:
        return decision
    named = ", ".join(str(r) for r in rules)
    return dataclasses.replace(again, source=f"{hooks.source} (as an allow rule {named} would)")
