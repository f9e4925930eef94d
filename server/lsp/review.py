"""Asking a person to review an edit where the editor has no preview of its own.

Through a prompt: `Apply`, `Show diff`, `Reject`; Show diff opens a unified
diff with window/showDocument and asks again (an editor that cannot open
documents gets the diff in the prompt itself, and only Apply / Reject). No
answer, or a dismissed prompt, count as Reject. An editor that cannot prompt,
or whose settings say `reviewVia: "codeAction"`, gets the review as code
actions (`questions.py`); the edit is then sent while the person's
`agentls.answer` is being handled.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from agentls.lsp.client_requests import ask_client
from agentls.lsp.questions import Emit, Question, new_review_id
from agentls.workspace.hunks import line_hunks

if TYPE_CHECKING:
    from agentls.lsp.server import AgentServer

APPLY, SHOW_DIFF, REJECT = "Apply", "Show diff", "Reject"
MAX_DIFF_IN_PROMPT = 3000


@dataclass(frozen=True)
class Proposal:
    rel: str
    uri: str
    before: str
    after: str
    summary: str
    session_id: str
    note: str = ""  # said with the question: the buffer holds the person's unsaved changes


@dataclass
class Review:
    approved: bool
    reason: str
    question: Question | None = None  # set when the review went through code actions


async def review_edit(server: AgentServer, proposal: Proposal, emit: Emit) -> Review:
    if server.review_route() == "prompt":
        failed: list[Exception] = []
        approved, reason = await _through_prompts(server, proposal, failed)
        if not failed or server.face.review_via == "prompt":
            return Review(approved, reason)
        server.prompts_failed()
    return await _through_code_actions(server, proposal, emit)


async def _through_prompts(
    server: AgentServer, proposal: Proposal, failed: list[Exception]
) -> tuple[bool, str]:
    """(approved, reason) after asking the person, at most a few rounds."""
    timeout = server.settings.limits.approval_timeout_seconds
    message = f"agentls wants to {proposal.summary}. Apply it?"
    if proposal.note:
        message = f"{message}\n{proposal.note}"
    actions = [APPLY, SHOW_DIFF, REJECT]
    if not server.can_show_documents():
        diff = diff_text(proposal)
        if len(diff) > MAX_DIFF_IN_PROMPT:
            diff = diff[:MAX_DIFF_IN_PROMPT] + "\n…"
        message = f"{message}\n\n{diff}"
        actions = [APPLY, REJECT]
    for _ in range(5):
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=message,
            actions=[types.MessageActionItem(title) for title in actions],
        )
        answer = await ask_client(
            server.window_show_message_request_async(params),
            timeout,
            "the edit review",
            errors=failed,
        )
        title = answer.title if answer is not None else None
        if title == APPLY:
            return True, ""
        if title != SHOW_DIFF:
            return False, "the person chose Reject" if title == REJECT else "no answer"
        await show_diff(server, proposal.rel, proposal.before, proposal.after)
    return False, "no decision after several rounds"


async def _through_code_actions(server: AgentServer, proposal: Proposal, emit: Emit) -> Review:
    hunks = line_hunks(proposal.before, proposal.after)
    question = Question(
        id=new_review_id(),
        kind="review",
        summary=proposal.summary,
        detail=f"{proposal.note}\n\n{diff_text(proposal)}"
        if proposal.note
        else diff_text(proposal),
        answers=[
            ("apply", f"{APPLY}: {proposal.summary}"),
            ("reject", f"{REJECT}: {proposal.summary}"),
        ],
        session_id=proposal.session_id,
        uri=proposal.uri,
        line=hunks[0].start if hunks else 0,
        path=proposal.rel,
        before=proposal.before,
        after=proposal.after,
    )
    answer = await server.questions.ask(
        question, server.settings.limits.approval_timeout_seconds, emit
    )
    if answer == "apply":
        return Review(True, "", question)
    reason = "the person chose Reject" if answer == "reject" else "no answer in time"
    return Review(False, reason, question)


def diff_text(proposal: Proposal) -> str:
    from agentls.tools.changes import unified_diff  # the tools load with the first ask

    labels = ("current", "proposed")
    return unified_diff(proposal.rel, proposal.before, proposal.after, labels=labels)


async def show_diff(server: AgentServer, rel: str, before: str, after: str) -> tuple[str, bool]:
    """Write the proposed change as a .diff file in the state dir and open it: (uri, shown)."""
    from agentls.tools.changes import unified_diff

    diff = unified_diff(rel, before, after, labels=("current", "proposed"))
    digest = hashlib.sha256(diff.encode()).hexdigest()[:12]
    folder = server.store.state_dir / "diffs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{Path(rel).name}-{digest}.diff"
    path.write_text(diff, encoding="utf-8")
    uri = path.as_uri()
    return uri, await server.show_document(uri)
