"""Approvals: Allow once, Always allow, Deny.

Asked with window/showMessageRequest; a null answer (the prompt was
dismissed) or no answer in time counts as Deny. An editor that cannot show the
prompt (an error answer such as MethodNotFound), or whose settings say
`approvalsVia: "codeAction"`, gets the question as code actions instead
(`questions/board.py`), and the run waits for the person to pick one. Both ways
are `asking.ask_person`.
"""

from __future__ import annotations

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.lsp.asking.ask_person import Prompt, ask_person
from agentls.lsp.editor.protocols import AsksApprovals
from agentls.lsp.questions.board import Emit, Question

ALLOW_ONCE, ALWAYS_ALLOW, DENY = "Allow once", "Always allow", "Deny"
_TITLES = {
    ApprovalAnswer.ALLOW_ONCE: ALLOW_ONCE,
    ApprovalAnswer.ALLOW_ALWAYS: ALWAYS_ALLOW,
    ApprovalAnswer.DENY: DENY,
}
_BY_VALUE = {a.value: a for a in _TITLES}
_UNANSWERED = {
    "dismissed": "the prompt was dismissed, not answered, or not supported",
    "timeout": "no answer in time",
}


class LspApprover:
    person = True  # the editor shows the call to the person, who answers
    reason = ""

    def __init__(
        self,
        editor: AsksApprovals,
        *,
        session_id: str = "",
        emit: Emit | None = None,
        origin_uri: str | None = None,
    ) -> None:
        self.editor = editor
        self.session_id = session_id
        self.emit: Emit = emit or (lambda kind, payload: None)
        self.origin_uri = origin_uri  # the document the ask came from, for the diagnostic
        self.reason = "no answer from the editor"

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        # No rule to add (the gate never remembers such a call): Always allow is not offered.
        choices = [
            (a.value, title)
            for a, title in _TITLES.items()
            if request.suggested_rule or a is not ApprovalAnswer.ALLOW_ALWAYS
        ]
        prompt = Prompt(approval_message(request), choices)
        answer = await ask_person(
            self.editor, "approval", prompt, lambda: self._question(request), self.emit
        )
        if answer.answer is None:
            self.reason = _UNANSWERED.get(answer.unanswered or "", "no answer from the editor")
            return ApprovalAnswer.DENY
        self.reason = "the person chose Deny"
        chosen = _BY_VALUE[answer.answer]
        if chosen is ApprovalAnswer.ALLOW_ALWAYS and self.saves_to_workspace():
            return ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE
        return chosen

    def _question(self, request: ApprovalRequest) -> Question:
        # No rule to add (the gate never remembers such a call): Always allow is not offered.
        always = (
            [(ApprovalAnswer.ALLOW_ALWAYS.value, f"{ALWAYS_ALLOW}: {request.suggested_rule}")]
            if request.suggested_rule
            else []
        )
        return Question(
            id=request.call_id,
            kind="approval",
            summary=request.summary,
            detail=request.detail,
            answers=[
                (ApprovalAnswer.ALLOW_ONCE.value, f"{ALLOW_ONCE}: {request.summary}"),
                *always,
                (ApprovalAnswer.DENY.value, f"{DENY}: {request.summary}"),
            ],
            session_id=self.session_id,
            uri=self.origin_uri or self.editor.last_uri,
        )

    def saves_to_workspace(self) -> bool:
        return self.editor.settings.permissions.always_allow_scope == "workspace"


def approval_message(request: ApprovalRequest) -> str:
    shown = request.detail if request.detail else request.summary
    if len(shown) > 1500:
        shown = shown[:1500] + "\n…"
    message = f"agentls wants to use {request.tool}:\n{shown}"
    if request.suggested_rule:
        message += f"\n\nAlways allow adds the rule {request.suggested_rule}."
    else:
        message += "\n\nNo rule can cover this call, so it can only be allowed once."
    return message
