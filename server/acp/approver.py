"""The gate's questions (commands, MCP tools, secret files) as ACP permission requests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from acp.schema import ToolCallLocation, ToolCallUpdate

from agentls.acp.permission import UNANSWERED, Choice, PermissionAsker, SessionRules, answer_of
from agentls.acp.toolcalls import kind_of, locations, permission_title, text_content
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.tooling import ToolIntent
from agentls.permissions.rules import parse_rule

_READING = ("read", "search")
REJECTED = "the person rejected it in the editor"
_REASONS = {
    Choice.REJECT_ALWAYS: "the person rejected it in the editor, for the rest of the session",
    Choice.CANCELLED: "the prompt was cancelled",
    Choice.UNANSWERED: UNANSWERED,
}


class AcpApprover:
    person = True  # the client shows the call to the person, who answers
    reason = ""

    def __init__(
        self,
        asker: PermissionAsker,
        session: SessionRules,
        approved: set[str],
        *,
        root: Path,
        calls: Mapping[str, ToolIntent],
    ) -> None:
        self.asker = asker
        self.session = session
        self.approved = approved  # call ids allowed here: their edit is not asked again
        self.root = root
        self.calls = calls  # the run's tool calls by id: what each request is about
        self.reason = REJECTED

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        # Empty when no rule can cover the call: no "always" then (`PermissionAsker.ask`).
        rules = [parse_rule(r) for r in request.rules]
        intent = self.calls.get(request.call_id)
        tool_input = intent.input if intent is not None else {}
        title = permission_title(request.tool, tool_input, request.summary)
        kind = kind_of(request.tool)
        if kind in _READING:  # asked only for a secret file or the person's ask rule:
            kind = "other"  # a client that approves reads by itself would answer for them
            title = f"{title} ({request.reason})" if request.reason else title
        tool_call = ToolCallUpdate(
            tool_call_id=request.call_id,
            title=title,
            kind=kind,
            status="pending",
            locations=locations(self.root, tool_input) or self._where_it_runs(request.tool),
            content=[text_content(request.detail or request.summary)],
        )
        choice = await self.asker.ask(tool_call, rules)
        if choice.allows:
            self.approved.add(request.call_id)
        self.reason = _REASONS.get(choice, REJECTED)
        return answer_of(choice)  # an "always": the runtime keeps and logs its rules

    def _where_it_runs(self, tool: str) -> list[ToolCallLocation] | None:
        """A command has no path of its own: it runs in the workspace root."""
        return [ToolCallLocation(path=str(self.root))] if kind_of(tool) == "execute" else None
