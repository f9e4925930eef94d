"""agentls.answer and agentls.showDiff: the person answers a waiting question.

A review answered `apply` returns only once the editor has answered the
edit's `workspace/applyEdit` (sent while this request is open: Kate takes an
edit only right after the person's command).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from pydantic import Field
from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands import CommandParams, parse
from agentls.lsp.review import show_diff
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

ANSWER, SHOW_DIFF = "agentls.answer", "agentls.showDiff"
SETTLE_SECONDS = 10.0


class AnswerParams(CommandParams):
    id: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class QuestionParams(CommandParams):
    id: str = Field(min_length=1)


def register(server: AgentServer) -> None:
    @server.command(ANSWER)
    async def answer(ls: AgentServer, *args: Any) -> dict[str, Any]:
        params: AnswerParams = parse(AnswerParams, args, ANSWER)
        try:
            question = ls.questions.answer(params.id, params.answer)
        except KeyError:
            raise JsonRpcInvalidParams(
                message=f"agentls: no question {params.id} is waiting (answered, or timed out)"
            ) from None
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(question.settled.wait(), SETTLE_SECONDS)
        return {"id": params.id, "answer": params.answer}

    @server.command(SHOW_DIFF)
    async def diff(ls: AgentServer, *args: Any) -> dict[str, Any]:
        params: QuestionParams = parse(QuestionParams, args, SHOW_DIFF)
        question = ls.questions.open.get(params.id)
        if question is None or question.kind != "review" or question.path is None:
            raise JsonRpcInvalidParams(message=f"agentls: no edit {params.id} is waiting")
        uri, shown = await show_diff(ls, question.path, question.before, question.after)
        return {"id": params.id, "uri": uri, "shown": shown}
