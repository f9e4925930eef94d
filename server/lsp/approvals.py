"""Approvals through window/showMessageRequest: Allow once, Always allow, Deny.

A null answer (the prompt was dismissed), an error (MethodNotFound from a
client without prompts) or no answer in time counts as Deny.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.lsp.client_requests import ask_client

if TYPE_CHECKING:
    from agentls.lsp.server import AgentServer

ALLOW_ONCE, ALWAYS_ALLOW, DENY = "Allow once", "Always allow", "Deny"
_ANSWERS = {
    ALLOW_ONCE: ApprovalAnswer.ALLOW_ONCE,
    ALWAYS_ALLOW: ApprovalAnswer.ALLOW_ALWAYS,
    DENY: ApprovalAnswer.DENY,
}


class LspApprover:
    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self.reason = "no answer from the editor"

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=approval_message(request),
            actions=[types.MessageActionItem(title) for title in _ANSWERS],
        )
        answer = await ask_client(
            self.server.window_show_message_request_async(params),
            self.server.settings.approval_timeout_seconds,
            "the approval prompt",
        )
        if answer is None:
            self.reason = "the prompt was dismissed, not answered, or not supported"
            return ApprovalAnswer.DENY
        self.reason = "the person chose Deny"
        chosen = _ANSWERS.get(answer.title, ApprovalAnswer.DENY)
        if chosen is ApprovalAnswer.ALLOW_ALWAYS and self.saves_to_workspace():
            return ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE
        return chosen

    def saves_to_workspace(self) -> bool:
        return self.server.settings.always_allow_scope == "workspace"


def approval_message(request: ApprovalRequest) -> str:
    shown = request.detail if request.detail else request.summary
    if len(shown) > 1500:
        shown = shown[:1500] + "\n…"
    return (
        f"agentls wants to use {request.tool}:\n{shown}\n\n"
        f"Always allow adds the rule {request.suggested_rule}."
    )
