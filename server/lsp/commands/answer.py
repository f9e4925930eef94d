"""`agentls.answer` {"id", "answer"}: the person answers a waiting question.

A review answered `apply` returns only once the editor has answered the
edit's `workspace/applyEdit` (sent while this request is open: Kate takes an
edit only right after the person's command).
"""

from __future__ import annotations

import contextlib
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.contracts.waiting import within
from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

ANSWER = "agentls.answer"
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
