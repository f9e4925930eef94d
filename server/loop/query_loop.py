"""One task run: prepare -> infer -> decide -> act -> observe -> guard.

Each phase is a method, so later work (context compaction, replay checks,
checkpoints) has a visible place to attach. The loop never knows a tool's
details or a permission rule: the runtime owns those.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentls.context.projector import ContextProjector
from agentls.contracts.messages import Message, ToolResultBlock, message_to_dict
from agentls.contracts.model_io import (
    MessageDone,
    ModelError,
    ModelInput,
    TextDelta,
    ThinkingDelta,
)
from agentls.contracts.observer import RunObserver, notify
from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason
from agentls.contracts.tooling import ErrorCode, Observation, ToolIntent
from agentls.contracts.usage import Usage
from agentls.loop.budget import Budget
from agentls.loop.steps import Finish, RunAgain, Step
from agentls.pricing import ModelPrice
from agentls.providers.base import ModelProvider
from agentls.runtime.runtime import AuditLog, ToolRuntime


@dataclass
class RunTally:
    """What one run has spent so far."""

    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    last_text: str = ""
    started: float = field(default_factory=time.monotonic)


class QueryLoop:
    def __init__(
        self,
        provider: ModelProvider,
        runtime: ToolRuntime,
        projector: ContextProjector,
        audit: AuditLog,
        observer: RunObserver,
        price: ModelPrice | None,
        *,
        system: str,
        max_output_tokens: int = 8192,
    ) -> None:
        self.provider = provider
        self.runtime = runtime
        self.projector = projector
        self.audit = audit
        self.observer = observer
        self.price = price
        self.system = system
        self.max_output_tokens = max_output_tokens

    async def run(
        self, run_id: str, prompt: Message, messages: list[Message], budget: Budget
    ) -> RunResult:
        """Advance ``messages`` (the session's history) until the run ends.

        Cancellation of the task ends the run as ``aborted``; the result is
        returned, not raised, and every tool_use gets its tool_result.
        """
        tally = RunTally(cost_usd=0.0 if self.price is not None else None)
        self.runtime.begin_run(run_id)
        self._append(run_id, 0, messages, prompt, "user_message")
        finish: Finish
        try:
            async with asyncio.timeout(budget.timeout_seconds):
                finish = await self._turns(run_id, messages, budget, tally)
        except TimeoutError:
            elapsed = time.monotonic() - tally.started
            finish = Finish(
                TerminalReason.TIMEOUT,
                f"the run took longer than {budget.timeout_seconds:g} s",
                BudgetOverrun("wall_seconds", budget.timeout_seconds or 0.0, round(elapsed, 3)),
            )
        except asyncio.CancelledError:
            finish = Finish(TerminalReason.ABORTED, "the run was cancelled")
        except ModelError as exc:
            finish = Finish(TerminalReason.MODEL_ERROR, str(exc))
        self._close_dangling(run_id, tally.turns, messages, finish)
        result = RunResult(
            finish.reason, tally.last_text, tally.usage, tally.cost_usd, tally.turns,
            finish.detail, finish.budget,
        )  # fmt: skip
        self.audit.append("run_finished", run=run_id, turn=tally.turns, result=result.to_dict())
        notify(self.observer.run_finished, result)
        return result

    async def _turns(
        self, run_id: str, messages: list[Message], budget: Budget, tally: RunTally
    ) -> Finish:
        while True:
            tally.turns += 1
            request = self.prepare(run_id, tally.turns, messages)
            done = await self.infer(run_id, tally.turns, request, tally)
            self._append(run_id, tally.turns, messages, done.message, "model_output",
                         stopReason=done.stop_reason)  # fmt: skip
            step = self.decide(done, budget, tally)
            if isinstance(step, Finish):
                return step
            observations = await self.act(step.intents, tally.turns)
            self.observe(run_id, tally.turns, messages, observations)
            self.audit.turn_boundary()
            stop = self.guard(budget, tally)
            if stop is not None:
                return stop

    def prepare(self, run_id: str, turn: int, messages: Sequence[Message]) -> ModelInput:
        tools = self.runtime.registry.specs(self.runtime.policy.mode)
        request = self.projector.project(self.system, messages, tools, self.max_output_tokens)
        self.audit.append(
            "model_request", run=run_id, turn=turn, model=self.provider.model_id,
            messages=len(messages), tools=[t.name for t in tools],
            estimatedTokens=self.projector.estimated_tokens(messages),
        )  # fmt: skip
        return request

    async def infer(
        self, run_id: str, turn: int, request: ModelInput, tally: RunTally
    ) -> MessageDone:
        done: MessageDone | None = None
        try:
            async for event in self.provider.stream(request):
                if isinstance(event, TextDelta):
                    notify(self.observer.text_delta, turn, event.text)
                elif isinstance(event, ThinkingDelta):
                    notify(self.observer.thinking_delta, turn, event.text)
                elif isinstance(event, MessageDone):
                    done = event
        except (ModelError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a provider bug must still end as model_error
            raise ModelError(f"the model provider failed: {exc!r}", kind="provider") from exc
        if done is None:
            raise ModelError("the model stream ended without a complete message", kind="stream")
        tally.usage = tally.usage + done.usage
        call_cost = self.price.cost(done.usage) if self.price is not None else None
        if tally.cost_usd is not None and call_cost is not None:
            tally.cost_usd += call_cost
        tally.last_text = done.message.text
        self.audit.append(
            "usage", run=run_id, turn=turn, usage=done.usage.to_dict(),
            costUsd=call_cost, totalCostUsd=tally.cost_usd,
        )  # fmt: skip
        notify(self.observer.usage, turn, tally.usage, tally.cost_usd)
        return done

    def decide(self, done: MessageDone, budget: Budget, tally: RunTally) -> Step:
        uses = done.message.tool_uses
        if not uses:
            if done.stop_reason == "pause_turn":
                return RunAgain(())
            return Finish(TerminalReason.COMPLETED, _completion_note(done.stop_reason))
        overrun = budget.overrun(tally.usage, tally.cost_usd)
        if overrun is not None:  # budgets really stop a run: no tool runs past one
            return Finish(TerminalReason.BUDGET_EXCEEDED, _overrun_note(overrun), overrun)
        return RunAgain(tuple(ToolIntent(u.id, u.name, u.input) for u in uses))

    async def act(self, intents: Sequence[ToolIntent], turn: int) -> list[Observation]:
        if not intents:
            return []
        return await self.runtime.execute_batch(intents, turn)

    def observe(
        self, run_id: str, turn: int, messages: list[Message], observations: list[Observation]
    ) -> None:
        if not observations:
            return
        results = tuple(ToolResultBlock(o.call_id, o.content, not o.ok) for o in observations)
        self._append(run_id, turn, messages, Message("user", results), "tool_results")

    def guard(self, budget: Budget, tally: RunTally) -> Finish | None:
        stop = self.runtime.stop
        if stop is not None:
            return Finish(TerminalReason(stop.reason), stop.detail)
        overrun = budget.overrun(tally.usage, tally.cost_usd)
        if overrun is not None:
            return Finish(TerminalReason.BUDGET_EXCEEDED, _overrun_note(overrun), overrun)
        if budget.max_turns is not None and tally.turns >= budget.max_turns:
            return Finish(
                TerminalReason.MAX_TURNS,
                f"the run reached its limit of {budget.max_turns} turns",
                BudgetOverrun("turns", budget.max_turns, tally.turns),
            )
        return None

    def _append(
        self, run_id: str, turn: int, messages: list[Message], message: Message, kind: str,
        **extra: Any,
    ) -> None:  # fmt: skip
        messages.append(message)
        self.audit.append(kind, run=run_id, turn=turn, message=message_to_dict(message), **extra)

    def _close_dangling(
        self, run_id: str, turn: int, messages: list[Message], finish: Finish
    ) -> None:
        """Every tool_use gets exactly one tool_result, also after an abort."""
        if not messages or messages[-1].role != "assistant":
            return
        uses = messages[-1].tool_uses
        if not uses:
            return
        done = self.runtime.completed
        why = finish.detail or finish.reason.value
        blocks = []
        for use in uses:
            observed = done.get(use.id)
            if observed is not None:
                blocks.append(ToolResultBlock(use.id, observed.content, not observed.ok))
                continue
            content = f"Error ({ErrorCode.CANCELLED.value}): not run: {why}"
            self.audit.append(
                "observation", run=run_id, turn=turn, callId=use.id, name=use.name, ok=False,
                content=content, error=ErrorCode.CANCELLED.value, retryable=False, meta={},
            )  # fmt: skip
            blocks.append(ToolResultBlock(use.id, content, True))
        self._append(run_id, turn, messages, Message("user", tuple(blocks)), "tool_results")


def _completion_note(stop_reason: str) -> str:
    if stop_reason == "max_tokens":
        return "the answer was cut off at the model's output limit"
    if stop_reason == "refusal":
        return "the model declined to answer"
    return ""


def _overrun_note(overrun: BudgetOverrun) -> str:
    return (
        f"the {overrun.limit_name} budget of {overrun.limit:g} was exceeded "
        f"({overrun.used:g} used, {overrun.over_by:g} over)"
    )
