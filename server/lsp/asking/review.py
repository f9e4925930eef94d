"""Asking a person to review an edit where the editor has no preview of its own.

Through a prompt: `Apply`, `Show diff`, `Reject`; Show diff opens a unified
diff with window/showDocument and asks again (an editor that cannot open
documents gets the diff in the prompt itself, and only Apply / Reject). No
answer, or a dismissed prompt, count as Reject. An editor that cannot prompt,
or whose settings say `reviewVia: "codeAction"`, gets the review as code
actions (`questions/board.py`); the edit is then sent while the person's
`agentls.answer` is being handled. Both ways are `asking.ask_person`.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from pathlib import Path

from agentls.lsp.asking.ask_person import Prompt, ask_person
from agentls.lsp.editor.protocols import Reviews, ShowsDocuments
from agentls.lsp.questions.board import Emit, Question, new_review_id
from agentls.workspace.atomic import replace_atomically
from agentls.workspace.hunks import line_hunks, unified_diff

APPLY, SHOW_DIFF, REJECT = "Apply", "Show diff", "Reject"
MAX_DIFF_IN_PROMPT = 3000
_UNANSWERED = {
    "prompt": "no answer",
    "codeAction": "no answer in time",
}


@dataclass(frozen=True)
class Proposal:
    rel: str
    uri: str
    before: str
    after: str
    summary: str
    session_id: str
    note: str = ""  # said with the question: the buffer holds the person's unsaved changes
    # One change of several files (a rename): the other files, (rel, before, after).
    others: tuple[tuple[str, str, str], ...] = ()


@dataclass
class Review:
    approved: bool
    reason: str
    question: Question | None = None  # set when the review went through code actions


async def review_edit(editor: Reviews, proposal: Proposal, emit: Emit) -> Review:
    answer = await ask_person(
        editor, "review", _prompt(editor, proposal), lambda: _question(proposal), emit
    )
    if answer.answer == "apply":
        return Review(True, "", answer.question)
    if answer.answer == "reject":
        reason = "the person chose Reject"
    elif answer.unanswered == "rounds":
        reason = "no decision after several rounds"
    else:
        reason = _UNANSWERED[answer.via]
    return Review(False, reason, answer.question)


def _prompt(editor: Reviews, proposal: Proposal) -> Prompt:
    message = f"agentls wants to {proposal.summary}. Apply it?"
    if proposal.note:
        message = f"{message}\n{proposal.note}"
    if not editor.can_show_documents():  # the diff in the prompt itself
        diff = diff_text(proposal)
        if len(diff) > MAX_DIFF_IN_PROMPT:
            diff = diff[:MAX_DIFF_IN_PROMPT] + "\n…"
        return Prompt(f"{message}\n\n{diff}", [("apply", APPLY), ("reject", REJECT)])

    async def show() -> None:
        if proposal.others:
            await show_diff_text(editor, proposal.rel, diff_text(proposal))
        else:
            await show_diff(editor, proposal.rel, proposal.before, proposal.after)

    choices = [("apply", APPLY), ("show_diff", SHOW_DIFF), ("reject", REJECT)]
    return Prompt(message, choices, again={"show_diff": show})


def _question(proposal: Proposal) -> Question:
    hunks = line_hunks(proposal.before, proposal.after)
    diff = diff_text(proposal)
    return Question(
        id=new_review_id(),
        kind="review",
        summary=proposal.summary,
        detail=f"{proposal.note}\n\n{diff}" if proposal.note else diff,
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


def diff_text(proposal: Proposal) -> str:
    labels = ("current", "proposed")
    files = [(proposal.rel, proposal.before, proposal.after), *proposal.others]
    return "".join(unified_diff(rel, before, after, labels=labels) for rel, before, after in files)


async def show_diff(editor: ShowsDocuments, rel: str, before: str, after: str) -> tuple[str, bool]:
    """Write the proposed change as a .diff file in the state dir and open it: (uri, shown).

    The file is written on a thread: the editor's other requests go on meanwhile."""
    diff = unified_diff(rel, before, after, labels=("current", "proposed"))
    return await show_diff_text(editor, rel, diff)


async def show_diff_text(editor: ShowsDocuments, rel: str, diff: str) -> tuple[str, bool]:
    """Open a unified diff (named after ``rel``) as a document: (uri, shown)."""
    digest = hashlib.sha256(diff.encode()).hexdigest()[:12]
    path = editor.state_dir / "diffs" / f"{Path(rel).name}-{digest}.diff"
    await asyncio.to_thread(write_diff, path, diff)
    uri = path.as_uri()
    return uri, await editor.show_document(uri)


def write_diff(path: Path, diff: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, diff)  # whole: the editor may open it while it is written again
