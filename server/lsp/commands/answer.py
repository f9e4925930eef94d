"""agentls.answer and agentls.showDiff: the person answers a waiting question.

A review answered `apply` returns only once the editor has answered the
edit's `workspace/applyEdit` (sent while this request is open: Kate takes an
edit only right after the person's command).
"""

from __future__ import annotations

import contextlib
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.contracts.waiting import within
from agentls.lsp.asking.review import show_diff
from agentls.lsp.commands.ask import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

ANSWER, SHOW_DIFF = "agentls.answer", "agentls.showDiff"
SETTLE_SECONDS = 10.0


def register(server: AgentServer) -> None:
    @server.command(ANSWER)
    async def answer(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import Answered, AnswerParams

        params = parse(AnswerParams, args, ANSWER)
        try:
            question = ls.questions.answer(params.id, params.answer)
        except KeyError:
            raise JsonRpcInvalidParams(
                message=f"agentls: no question {params.id} is waiting (answered, or timed out)"
            ) from None
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        with contextlib.suppress(TimeoutError):
            await within(question.settled.wait(), SETTLE_SECONDS)
        return Answered(id=params.id, answer=params.answer).wire()

    @server.command(SHOW_DIFF)
    async def diff(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import DiffShown, QuestionParams

        params = parse(QuestionParams, args, SHOW_DIFF)
        question = ls.questions.open.get(params.id)
        if question is None or question.kind != "review" or question.path is None:
            raise JsonRpcInvalidParams(message=f"agentls: no edit {params.id} is waiting")
        uri, shown = await show_diff(ls, question.path, question.before, question.after)
        return DiffShown(id=params.id, uri=uri, shown=shown).wire()
