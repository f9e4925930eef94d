"""The gate's questions (commands, MCP tools, secret files) as ACP permission requests;
and a proposed plan, whose options are the modes to switch to and "keep planning"."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from acp.schema import PermissionOption, ToolCallLocation, ToolCallUpdate

from agentls.acp.permission import UNANSWERED, Choice, PermissionAsker, SessionRules, answer_of
from agentls.acp.toolcalls import kind_of, locations, permission_title, text_content
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.plans import NO_PERSON, PlanAnswer, PlanChoice, PlanProposal
from agentls.contracts.tooling import ToolIntent
from agentls.permissions.rules import parse_rule

_READING = ("read", "search")
REJECTED = "the person rejected it in the editor"
_REASONS = {
    Choice.REJECT_ALWAYS: "the person rejected it in the editor, for the rest of the session",
    Choice.CANCELLED: "the prompt was cancelled",
    Choice.UNANSWERED: UNANSWERED,
}
PLAN_OPTIONS = [
    PermissionOption(
        option_id=PlanChoice.DEFAULT, name="Yes, and review each edit (default mode)",
        kind="allow_once",
    ),
    PermissionOption(
        option_id=PlanChoice.ACCEPT_EDITS, name="Yes, and accept edits (accept-edits mode)",
        kind="allow_always",
    ),
    PermissionOption(
        option_id=PlanChoice.KEEP_PLANNING, name="No, keep planning", kind="reject_once"
    ),
]  # fmt: skip


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

    async def review_plan(self, proposal: PlanProposal) -> PlanAnswer:
        tool_call = ToolCallUpdate(
            tool_call_id=proposal.call_id,
            title="Ready to start? The proposed plan",
            kind="switch_mode",
            status="pending",
            content=[text_content(proposal.plan)],
        )
        picked = await self.asker.choose(tool_call, PLAN_OPTIONS)
        if picked in (Choice.CANCELLED, Choice.UNANSWERED):
            # The prompt is being cancelled: the run ends here, as cancelled (not with the
            # plan as its answer, which needs no further step to end on).
            await asyncio.sleep(0)
            return NO_PERSON
        try:
            choice = PlanChoice(picked)
        except ValueError:  # an option we never offered: no switch
            return NO_PERSON
        # What the person says next comes as a prompt: steering, during the run.
        return PlanAnswer(choice)

    def _where_it_runs(self, tool: str) -> list[ToolCallLocation] | None:
        """A command has no path of its own: it runs in the workspace root."""
        return [ToolCallLocation(path=str(self.root))] if kind_of(tool) == "execute" else None
