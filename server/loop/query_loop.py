"""One task run: prepare -> infer -> decide -> act -> observe -> guard.

Each phase is a method, so later work (replay checks, checkpoints) has a
visible place to attach. The loop never knows a tool's details or a permission
rule: the runtime owns those. What the model sees is the context layer's
projection; when the API still finds it too long, the loop compacts once and
retries the call once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from agentls.context.policy import overflow_advice
from agentls.context.projector import ContextProjector, Projection
from agentls.contracts.messages import Message, TextBlock, ToolResultBlock
from agentls.contracts.model_io import (
    MessageDone,
    ModelError,
    ModelErrorKind,
    ModelInput,
    TextDelta,
    ThinkingDelta,
)
from agentls.contracts.observer import RunObserver, notify
from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason, completion_note
from agentls.contracts.tooling import ErrorCode, Observation, ToolIntent
from agentls.contracts.usage import Usage
from agentls.hooks.engine import RunHooks
from agentls.loop.budget import Budget
from agentls.loop.compaction import Compactor
from agentls.loop.hooks import NoHooks, TurnHooks
from agentls.loop.steps import Finish, RunAgain, Step, overrun_note
from agentls.pricing import ModelPrice
from agentls.providers.base import ModelProvider
from agentls.runtime.pipeline import AuditLog, ToolRuntime
from agentls.session import events as ev
from agentls.session.records import RunResultRecord


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
        *,
        provider: ModelProvider,
        runtime: ToolRuntime,
        projector: ContextProjector,
        audit: AuditLog,
        observer: RunObserver,
        price: ModelPrice | None,
        system: str,
        max_output_tokens: int = 8192,
        hooks: TurnHooks | None = None,
    ) -> None:
        """``hooks``: agentls's own turn hooks (checkpoints, problems); the settings' hooks
        are the runtime's (``runtime.settings_hooks``), fired here for the run's events."""
        self.provider = provider
        self.runtime = runtime
        self.projector = projector
        self.audit = audit
        self.observer = observer
        self.price = price
        self.system = system
        self.max_output_tokens = max_output_tokens
        self.compactor = Compactor(provider, projector, audit)
        self.hooks: TurnHooks = hooks or NoHooks()

    @property
    def settings_hooks(self) -> RunHooks:
        return self.runtime.settings_hooks

    async def run(
        self,
        run_id: str,
        prompt: Message,
        messages: list[Message],
        budget: Budget,
        context: Sequence[str] = (),
    ) -> RunResult:
        """Advance ``messages`` (the session's history) until the run ends. ``context``: what
        the session's hooks said for the model, kept after the prompt.

        Cancellation of the task ends the run as ``aborted``; the result is
        returned, not raised, and every tool_use gets its tool_result.
        """
        tally = RunTally(cost_usd=0.0 if self.price is not None else None)
        self.runtime.begin_run(run_id)
        finish: Finish | None
        try:
            async with asyncio.timeout(budget.timeout_seconds):
                finish = await self._submit(run_id, prompt, messages, context)
                if finish is None:
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
        await self._settle_hooks(aborted=finish.reason is TerminalReason.ABORTED)
        self._close_dangling(run_id, tally.turns, messages, finish)
        result = RunResult(
            reason=finish.reason,
            text=tally.last_text,
            usage=tally.usage,
            cost_usd=tally.cost_usd,
            turns=tally.turns,
            detail=finish.detail,
            budget=finish.budget,
        )
        self.audit.append(
            ev.RunFinished(run=run_id, turn=tally.turns, result=RunResultRecord.of(result))
        )
        notify(self.observer.run_finished, result)
        return result

    async def _submit(
        self, run_id: str, prompt: Message, messages: list[Message], context: Sequence[str]
    ) -> Finish | None:
        """The prompt into the history, followed by ``context`` and what UserPromptSubmit
        hooks add; a Finish when one of them blocked it (then it is not kept: the model
        never sees it)."""
        added = list(context)
        if self.settings_hooks.has("UserPromptSubmit"):
            verdict = await self.settings_hooks.prompt_submitted(prompt.text)
            if verdict.blocked is not None:
                return Finish(
                    TerminalReason.PERMISSION_DENIED, f"the prompt was blocked: {verdict.blocked}"
                )
            added += verdict.context
        if added:
            more = tuple(TextBlock(text) for text in added)
            prompt = dataclasses.replace(prompt, content=(*prompt.content, *more))
        messages.append(prompt)
        self.audit.stage(ev.UserMessage(run=run_id, turn=0, message=prompt))
        return None

    async def _settle_hooks(self, *, aborted: bool) -> None:
        """Hooks still running beside the run (Notification) end before the run does: its
        log is its own until then. An aborted run does not wait for them."""
        # Cancelled again while waiting: the run still writes its end.
        with contextlib.suppress(asyncio.CancelledError):
            await self.settings_hooks.settle(abandon=aborted)

    async def _turns(
        self, run_id: str, messages: list[Message], budget: Budget, tally: RunTally
    ) -> Finish:
        stop_hook_active = False  # a Stop hook kept this run going already
        while True:
            tally.turns += 1
            turn = tally.turns
            projection = self.prepare(run_id, turn, messages)
            if projection.wants_compaction:
                await self._compact(run_id, turn, tally, "threshold")
                projection = self.prepare(run_id, turn, messages, allow_compaction=False)
            try:
                done = await self.infer(run_id, turn, projection.request, tally)
            except ModelError as exc:
                if exc.kind != ModelErrorKind.PROMPT_TOO_LONG:
                    raise
                done = await self._recover(run_id, turn, messages, tally, str(exc))
            messages.append(done.message)
            self.audit.stage(ev.ModelOutput(run=run_id, turn=turn, message=done.message,
                                            stop_reason=done.stop_reason))  # fmt: skip
            step = self.decide(done, budget, tally)
            if isinstance(step, Finish):
                # A run with no turn or budget left ends as it is, whatever a Stop hook says.
                if self.guard(budget, tally) is not None or not await self._stop_hooks(
                    run_id, turn, messages, step, stop_hook_active
                ):
                    return step
                stop_hook_active = True
                continue
            observations = await self.act(run_id, step.intents, turn)
            notes = await self.hooks.after_act(run_id, turn)
            self.observe(run_id, turn, messages, observations, notes)
            self.audit.turn_boundary()
            stop = self.guard(budget, tally)
            if stop is not None:
                return stop

    async def _stop_hooks(
        self, run_id: str, turn: int, messages: list[Message], finish: Finish, active: bool
    ) -> bool:
        """Whether a Stop hook keeps a completed run going: its reason goes to the model as
        the next user message."""
        if finish.reason is not TerminalReason.COMPLETED or not self.settings_hooks.has("Stop"):
            return False
        reason = await self.settings_hooks.stopping(turn, active)
        if reason is None:
            return False
        message = Message("user", (TextBlock(reason),))
        messages.append(message)
        self.audit.stage(ev.UserMessage(run=run_id, turn=turn, message=message))
        self.audit.turn_boundary()
        return True

    def prepare(
        self, run_id: str, turn: int, messages: Sequence[Message], *, allow_compaction: bool = True
    ) -> Projection:
        """This turn's projection; logged as the model request unless it wants a compaction."""
        registry, mode = self.runtime.registry, self.runtime.policy.mode
        tools = registry.specs(mode)
        projection = self.projector.project(
            self.system, messages, tools, self.max_output_tokens, allow_compaction=allow_compaction
        )
        if projection.changed is not None:
            self.audit.append(dataclasses.replace(projection.changed, run=run_id, turn=turn))
        if not projection.wants_compaction:
            self.audit.append(ev.ModelRequest(
                run=run_id, turn=turn, model=self.provider.model_id,
                messages=len(projection.request.messages), tools=registry.spec_names(mode),
                estimated_tokens=projection.estimated_tokens,
            ))  # fmt: skip
        return projection

    async def _compact(
        self, run_id: str, turn: int, tally: RunTally, reason: str, *, forced: bool = False
    ) -> bool:
        if self.settings_hooks.has("PreCompact"):
            await self.settings_hooks.compacting(turn, "auto")
        usage = await self.compactor.compact(run_id, turn, reason=reason, forced=forced)
        if usage is not None:
            self._account(run_id, turn, usage, tally, purpose="compaction")
        return usage is not None

    async def _recover(
        self, run_id: str, turn: int, messages: list[Message], tally: RunTally, overflow: str
    ) -> MessageDone:
        """The prompt was too long after all: one compaction (keeping one turn), one retry."""
        policy = self.projector.policy
        compacted = False
        if policy.compaction:
            self.projector.overflowed(overflow)
            compacted = await self._compact(run_id, turn, tally, "prompt_too_long", forced=True)
            projection = self.prepare(run_id, turn, messages, allow_compaction=False)
            try:
                return await self.infer(run_id, turn, projection.request, tally)
            except ModelError as exc:
                if exc.kind != ModelErrorKind.PROMPT_TOO_LONG:
                    raise
                overflow = str(exc)
        advice = overflow_advice(policy, overflow, compacted=compacted)
        raise ModelError(advice, kind=ModelErrorKind.PROMPT_TOO_LONG)

    async def infer(
        self, run_id: str, turn: int, request: ModelInput, tally: RunTally
    ) -> MessageDone:
        done: MessageDone | None = None
        try:
            async for event in self.provider.stream(request):
                # By exact type: the event classes have no subclasses, and most events
                # of a tool turn match none of these.
                if type(event) is TextDelta:
                    notify(self.observer.text_delta, turn, event.text)
                elif type(event) is ThinkingDelta:
                    notify(self.observer.thinking_delta, turn, event.text)
                elif type(event) is MessageDone:
                    done = event
        except (ModelError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a provider bug must still end as model_error
            raise ModelError(
                f"the model provider failed: {exc!r}", kind=ModelErrorKind.PROVIDER
            ) from exc
        if done is None:
            raise ModelError(
                "the model stream ended without a complete message", kind=ModelErrorKind.STREAM
            )
        self.projector.calibrate(done.usage)
        tally.last_text = done.message.text
        self._account(run_id, turn, done.usage, tally)
        return done

    def _account(
        self, run_id: str, turn: int, usage: Usage, tally: RunTally,
        purpose: Literal["compaction"] | None = None,
    ) -> None:  # fmt: skip
        """Every model call counts toward the run's usage, cost and budgets."""
        tally.usage = tally.usage + usage
        call_cost = self.price.cost(usage) if self.price is not None else None
        if tally.cost_usd is not None and call_cost is not None:
            tally.cost_usd += call_cost
        self.audit.stage(ev.UsageEvent(
            run=run_id, turn=turn, usage=usage,
            cost_usd=call_cost, total_cost_usd=tally.cost_usd, purpose=purpose,
        ))  # fmt: skip
        notify(self.observer.usage, turn, tally.usage, tally.cost_usd)

    def decide(self, done: MessageDone, budget: Budget, tally: RunTally) -> Step:
        uses = done.message.tool_uses
        if not uses:
            if done.stop_reason == "pause_turn":
                return RunAgain(())
            return Finish(TerminalReason.COMPLETED, completion_note(done.stop_reason))
        overrun = budget.overrun(tally.usage, tally.cost_usd)
        if overrun is not None:  # budgets really stop a run: no tool runs past one
            return Finish(TerminalReason.BUDGET_EXCEEDED, overrun_note(overrun), overrun)
        return RunAgain(tuple(ToolIntent(u.id, u.name, u.input) for u in uses))

    async def act(self, run_id: str, intents: Sequence[ToolIntent], turn: int) -> list[Observation]:
        if not intents:
            return []
        await self.hooks.before_act(run_id, turn, intents)
        try:
            return await self.runtime.execute_batch(intents, turn)
        except asyncio.CancelledError:
            # An aborted command may still have changed files: record them too.
            await asyncio.shield(self.hooks.after_act(run_id, turn))
            raise

    def observe(
        self,
        run_id: str,
        turn: int,
        messages: list[Message],
        observations: list[Observation],
        notes: Sequence[str] = (),
    ) -> None:
        if not observations:
            return
        blocks: list[ToolResultBlock | TextBlock] = [
            ToolResultBlock(o.call_id, o.content, not o.ok) for o in observations
        ]
        blocks += [TextBlock(note) for note in notes]  # after the results, as the APIs want
        self._results(run_id, turn, messages, Message("user", tuple(blocks)))

    def guard(self, budget: Budget, tally: RunTally) -> Finish | None:
        stop = self.runtime.stop
        if stop is not None:
            return Finish(stop.reason, stop.detail)
        overrun = budget.overrun(tally.usage, tally.cost_usd)
        if overrun is not None:
            return Finish(TerminalReason.BUDGET_EXCEEDED, overrun_note(overrun), overrun)
        if budget.max_turns is not None and tally.turns >= budget.max_turns:
            return Finish(
                TerminalReason.MAX_TURNS,
                f"the run reached its limit of {budget.max_turns} turns",
                BudgetOverrun("turns", budget.max_turns, tally.turns),
            )
        return None

    def _results(self, run_id: str, turn: int, messages: list[Message], message: Message) -> None:
        messages.append(message)
        self.audit.stage(ev.ToolResults(run=run_id, turn=turn, message=message))

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
            self.audit.append(ev.ObservationEvent(
                run=run_id, turn=turn, call_id=use.id, name=use.name, ok=False,
                content=content, error=ErrorCode.CANCELLED, retryable=False, meta={},
            ))  # fmt: skip
            blocks.append(ToolResultBlock(use.id, content, True))
        self._results(run_id, turn, messages, Message("user", tuple(blocks)))
