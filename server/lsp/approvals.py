"""Approvals: Allow once, Always allow, Deny.

Asked with window/showMessageRequest; a null answer (the prompt was
dismissed) or no answer in time counts as Deny. An editor that cannot show the
prompt (an error answer such as MethodNotFound), or whose settings say
`approvalsVia: "codeAction"`, gets the question as code actions instead
(`questions.py`), and the run waits for the person to pick one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.lsp.client_requests import ask_client
from agentls.lsp.questions import Emit, Question

if TYPE_CHECKING:
    from agentls.lsp.server import AgentServer

ALLOW_ONCE, ALWAYS_ALLOW, DENY = "Allow once", "Always allow", "Deny"
_ANSWERS = {
    ALLOW_ONCE: ApprovalAnswer.ALLOW_ONCE,
    ALWAYS_ALLOW: ApprovalAnswer.ALLOW_ALWAYS,
    DENY: ApprovalAnswer.DENY,
}
_BY_VALUE = {a.value: a for a in _ANSWERS.values()}


class LspApprover:
    def __init__(
        self,
        server: AgentServer,
        *,
        session_id: str = "",
        emit: Emit | None = None,
        origin_uri: str | None = None,
    ) -> None:
        self.server = server
        self.session_id = session_id
        self.emit: Emit = emit or (lambda kind, payload: None)
        self.origin_uri = origin_uri  # the document the ask came from, for the diagnostic
        self.reason = "no answer from the editor"

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        if self.server.approvals_route() == "prompt":
            failed: list[Exception] = []
            answer = await ask_client(
                self.server.window_show_message_request_async(self._params(request)),
                self.server.settings.limits.approval_timeout_seconds,
                "the approval prompt",
                errors=failed,
            )
            if not failed or self.server.face.approvals_via == "prompt":
                return self._from_prompt(answer)
            self.server.prompts_failed()
        return await self._through_code_actions(request)

    def _params(self, request: ApprovalRequest) -> types.ShowMessageRequestParams:
        return types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=approval_message(request),
            actions=[types.MessageActionItem(title) for title in _ANSWERS],
        )

    def _from_prompt(self, answer: types.MessageActionItem | None) -> ApprovalAnswer:
        if answer is None:
            self.reason = "the prompt was dismissed, not answered, or not supported"
            return ApprovalAnswer.DENY
        return self._chosen(_ANSWERS.get(answer.title, ApprovalAnswer.DENY))

    def _chosen(self, chosen: ApprovalAnswer) -> ApprovalAnswer:
        self.reason = "the person chose Deny"
        if chosen is ApprovalAnswer.ALLOW_ALWAYS and self.saves_to_workspace():
            return ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE
        return chosen

    async def _through_code_actions(self, request: ApprovalRequest) -> ApprovalAnswer:
        question = Question(
            id=request.call_id,
            kind="approval",
            summary=request.summary,
            detail=request.detail,
            answers=[
                (ApprovalAnswer.ALLOW_ONCE.value, f"{ALLOW_ONCE}: {request.summary}"),
                # no rule to add (the gate never remembers such a call): not offered
                *(
                    [
                        (
                            ApprovalAnswer.ALLOW_ALWAYS.value,
                            f"{ALWAYS_ALLOW}: {request.suggested_rule}",
                        )
                    ]
                    if request.suggested_rule
                    else []
                ),
                (ApprovalAnswer.DENY.value, f"{DENY}: {request.summary}"),
            ],
            session_id=self.session_id,
            uri=self.origin_uri or self.server.last_uri,
        )
        answer = await self.server.questions.ask(
            question, self.server.settings.limits.approval_timeout_seconds, self.emit
        )
        if answer is None:
            self.reason = "no answer in time"
            return ApprovalAnswer.DENY
        return self._chosen(_BY_VALUE[answer])

    def saves_to_workspace(self) -> bool:
        return self.server.settings.permissions.always_allow_scope == "workspace"


def approval_message(request: ApprovalRequest) -> str:
    shown = request.detail if request.detail else request.summary
    if len(shown) > 1500:
        shown = shown[:1500] + "\n…"
    return (
        f"agentls wants to use {request.tool}:\n{shown}\n\n"
        f"Always allow adds the rule {request.suggested_rule}."
    )
