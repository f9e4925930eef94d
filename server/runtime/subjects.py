"""A call that writes several paths (a rename) is decided by its strictest path.

Rules are matched against every path the call may write, not only the one it
names: a deny for any of them denies, a protected path needs a person.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agentls.contracts.decisions import PolicyDecision, Verdict
from agentls.permissions.policy import PermissionPolicy
from agentls.workspace.interface import ToolContext, ToolDefinition


def _strictness(decision: PolicyDecision) -> int:
    if decision.verdict is Verdict.DENY:
        return 3
    if decision.verdict is Verdict.ASK:
        return 2 if decision.person_only else 1
    return 0


async def strictest(
    policy: PermissionPolicy,
    tool: ToolDefinition[Any],
    args: BaseModel,
    context: ToolContext,
    subject: str,
    decision: PolicyDecision,
) -> tuple[str, PolicyDecision]:
    """The path and decision to go by: the named path's, or a stricter other path's.
    Raises ToolError when the tool cannot say which paths it would write."""
    if tool.more_subjects is None or decision.verdict is Verdict.DENY:
        return subject, decision
    for other in await tool.more_subjects(args, context):
        if other == subject:
            continue
        found = policy.evaluate(tool.name, tool.risk, tool.subject_kind, other)
        if _strictness(found) > _strictness(decision):
            subject, decision = other, found
    return subject, decision
