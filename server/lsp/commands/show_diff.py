"""`agentls.showDiff` {"id"}: a waiting edit review's diff, opened in the editor."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.asking.review import show_diff
from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

SHOW_DIFF = "agentls.showDiff"


def register(server: AgentServer) -> None:
    @server.command(SHOW_DIFF)
    async def diff(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import DiffShown, QuestionParams

        params = parse(QuestionParams, args, SHOW_DIFF)
        question = ls.questions.open.get(params.id)
        if question is None or question.kind != "review" or question.path is None:
            raise JsonRpcInvalidParams(message=f"agentls: no edit {params.id} is waiting")
        uri, shown = await show_diff(ls.editor, question.path, question.before, question.after)
        return DiffShown(id=params.id, uri=uri, shown=shown).wire()
