"""Code actions beyond the asks: waiting questions, `agentls:` comments, cancelling.

- Every waiting question (approval or edit review) on every document:
  "agentls: Allow once: …", "agentls: Apply: …", "agentls: Show diff: …", …
  each running `agentls.answer` (or `agentls.showDiff`).
- A line holding `agentls: <request>` (in a comment, say) under the cursor or
  in the selection: "Ask agentls: <request>", for editors where a prompt
  cannot be typed into a command.
- While runs go on, in editors that answer through code actions:
  "agentls: Cancel the run".
"""

from __future__ import annotations

import re

from lsprotocol import types

from agentls.lsp.commands.answer import ANSWER
from agentls.lsp.commands.show_diff import SHOW_DIFF
from agentls.lsp.editor.protocols import OffersQuestions
from agentls.lsp.questions.board import DIAGNOSTIC_SOURCE, Question

ASK, CANCEL = "agentls.ask", "agentls.cancel"
# `agentls: <request>` alone on its line, or after a comment's opening (#, //, --, ;, %, /*, <!--).
MARKER = re.compile(
    r"^\s*(?:(?:#|//|--|;|%|/\*|<!--|\*|\")+\s*)?agentls:\s*(\S.*?)\s*(?:-->|\*/|\*\)|-\})?\s*$",
    re.IGNORECASE,
)
MAX_LINES_SCANNED = 50
TITLE_CHARS = 80


def _short(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def question_actions(
    editor: OffersQuestions, params: types.CodeActionParams, *, running: bool
) -> list[types.CodeAction]:
    """The waiting questions' answers, and Cancel while ``running`` (runs go on)."""
    actions = []
    for question in list(editor.questions.open.values()):
        related = _diagnostics_for(question, params)
        for answer, title in question.answers:
            shown = f"agentls: {_short(title)}"
            actions.append(_action(shown, ANSWER, question.id, answer, related))
            if answer == "apply" and editor.can_show_documents():
                shown = f"agentls: Show diff: {_short(question.summary)}"
                actions.append(_action(shown, SHOW_DIFF, question.id))
    if running and editor.uses_code_actions():
        title = "agentls: Cancel the run"
        command = types.Command(title=title, command=CANCEL, arguments=[{}])
        actions.append(types.CodeAction(title, kind=types.CodeActionKind.QuickFix, command=command))
    return actions


def _action(
    title: str,
    command: str,
    question_id: str,
    answer: str | None = None,
    diagnostics: list[types.Diagnostic] | None = None,
) -> types.CodeAction:
    argument: dict[str, str] = {"id": question_id}
    if answer is not None:
        argument["answer"] = answer
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics or None,
        command=types.Command(title=title, command=command, arguments=[argument]),
    )


def _diagnostics_for(question: Question, params: types.CodeActionParams) -> list[types.Diagnostic]:
    return [
        d
        for d in params.context.diagnostics
        if d.source == DIAGNOSTIC_SOURCE and d.code == question.id
    ]


async def marker_actions(
    editor: OffersQuestions, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """ "Ask agentls: …" for each `agentls: <request>` line in the range."""
    uri = params.text_document.uri
    lines = await editor.document_lines(uri)
    start = params.range.start.line
    end = min(max(params.range.end.line, start), start + MAX_LINES_SCANNED)
    if params.range.end.line > start and params.range.end.character == 0:
        end -= 1  # a selection of whole lines ends at the start of the next one
    actions = []
    for number in range(start, min(end, len(lines) - 1) + 1):
        found = MARKER.search(lines[number])
        if found is None:
            continue
        request = found.group(1)
        prompt = f"{request}\n\n(The person wrote this request at line {number + 1} of this file.)"
        if request.startswith("/"):  # `/name args`: the words after the name are its own
            prompt = request
        title = f"Ask agentls: {_short(request)}"
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                command=types.Command(
                    title=title, command=ASK, arguments=[{"prompt": prompt, "uri": uri}]
                ),
            )
        )
    return actions
