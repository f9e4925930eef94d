"""Code actions: "Ask agentls to fix: …" per diagnostic, "Ask agentls about this selection",
and (`questions/actions.py`) waiting questions, `agentls:` requests and cancelling.

Each is offered only where it makes sense: while a question waits for the person,
only its answers (and cancelling) are offered, since an ask would start another run
beside the waiting one; "about this selection" only for a selection, not for the
whole line Kate sends when nothing is selected.
"""

from __future__ import annotations

from lsprotocol import types

from agentls.lsp.commands.ask import ASK
from agentls.lsp.questions.actions import marker_actions, question_actions
from agentls.lsp.questions.board import DIAGNOSTIC_SOURCE
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

ASK_ABOUT_SELECTION = "Ask agentls about this selection"


def register(server: AgentServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
        ),
    )
    async def code_actions(
        ls: AgentServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        ls.editor.last_uri = params.text_document.uri
        answers = question_actions(ls.editor, params, running=bool(ls.runs))
        if ls.editor.questions.open:  # the person answers first
            return answers
        return [*answers, *await marker_actions(ls.editor, params), *actions_for(params)]


def is_selection(range_: types.Range) -> bool:
    """Some text is selected: not a cursor (an empty range), nor the one whole line
    (from its start to the next line's) that Kate sends when nothing is selected."""
    start, end = range_.start, range_.end
    if start == end:
        return False
    whole_line = start.character == 0 and end.character == 0 and end.line == start.line + 1
    return not whole_line


def _range_dict(range_: types.Range) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": range_.start.line, "character": range_.start.character},
        "end": {"line": range_.end.line, "character": range_.end.character},
    }


def actions_for(params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    actions = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source == DIAGNOSTIC_SOURCE:
            continue  # agentls's own questions have their own actions
        message = diagnostic.message.strip().splitlines()[0] if diagnostic.message else ""
        source = f" ({diagnostic.source})" if diagnostic.source else ""
        prompt = (
            f"Fix this problem reported at line {diagnostic.range.start.line + 1}"
            f"{source}: {diagnostic.message.strip()}"
        )
        actions.append(
            types.CodeAction(
                title=f"Ask agentls to fix: {message[:80]}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(
                    title=f"Ask agentls to fix: {message[:80]}",
                    command=ASK,
                    arguments=[
                        {"prompt": prompt, "uri": uri, "range": _range_dict(diagnostic.range)}
                    ],
                ),
            )
        )
    if is_selection(params.range):
        actions.append(
            types.CodeAction(
                title=ASK_ABOUT_SELECTION,
                kind=types.CodeActionKind.Refactor,
                command=types.Command(
                    title=ASK_ABOUT_SELECTION,
                    command=ASK,
                    arguments=[
                        {
                            "prompt": "Explain this code and point out any problems.",
                            "uri": uri,
                            "range": _range_dict(params.range),
                        }
                    ],
                ),
            )
        )
    return actions
