"""The gate's questions (commands, MCP tools, secret files) as ACP permission requests."""

from __future__ import annotations

from acp.schema import ToolCallUpdate

from agentls.acp.permission import Choice, PermissionAsker, remember
from agentls.acp.toolcalls import text_content
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import parse_rule

_ANSWERS = {
    Choice.ALLOW_ONCE: ApprovalAnswer.ALLOW_ONCE,
    Choice.ALLOW_ALWAYS: ApprovalAnswer.ALLOW_ALWAYS,  # the runtime adds the session rules
}


REJECTED = "the person rejected it in the editor"
_REASONS = {
    Choice.REJECT_ALWAYS: "the person rejected it in the editor, for the rest of the session",
    Choice.CANCELLED: "the prompt was cancelled",
}


class AcpApprover:
    person = True  # the client shows the call to the person, who answers

    def __init__(
        self, asker: PermissionAsker, policy: PermissionPolicy, approved: set[str]
    ) -> None:
        self.asker = asker
        self.policy = policy
        self.approved = approved  # call ids allowed here: their edit is not asked again
        self.reason = REJECTED

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        # Empty when no rule can cover the call: no "always" then (`PermissionAsker.ask`).
        rules = [parse_rule(r) for r in request.rules]
        shown = request.detail or request.summary
        tool_call = ToolCallUpdate(
            tool_call_id=request.call_id,
            title=request.summary,
            status="pending",
            content=[text_content(shown)],
        )
        choice = await self.asker.ask(tool_call, rules)
        remember(self.policy, choice, rules)  # reject_always: session deny rules
        if choice.allows:
            self.approved.add(request.call_id)
        self.reason = _REASONS.get(choice, REJECTED)
        return _ANSWERS.get(choice, ApprovalAnswer.DENY)
