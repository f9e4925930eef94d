"""The tool runtime: every tool call goes through one ordered pipeline.

find -> validate input (schema) -> tool-specific validation -> visibility
(mode) -> permission (rules, then the person) -> run with timeout and
cancellation -> shape as an observation -> log. Tools never see messages or
state; every decision and result is written to the audit log.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from agentls.contracts.decisions import (
    ApprovalAnswer,
    ApprovalRequest,
    PolicyDecision,
    RuntimeDecision,
    Verdict,
)
from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import INVALID_JSON_KEY
from agentls.contracts.observer import RunObserver, notify
from agentls.contracts.outcomes import TerminalReason
from agentls.contracts.plans import Plan, PlanAnswer, PlanProposal
from agentls.contracts.processes import CallRef
from agentls.contracts.running import calling
from agentls.contracts.tooling import ErrorCode, Observation, Risk, ToolError, ToolIntent
from agentls.hooks.engine import HookEngine, RunHooks
from agentls.permissions.approvers import Approver
from agentls.permissions.modes import Mode, is_visible
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import Rule
from agentls.runtime import hook_gate, shaping
from agentls.runtime.deadlines import CallDeadlines
from agentls.runtime.registry import ToolRegistry
from agentls.runtime.subjects import strictest
from agentls.session import events as ev
from agentls.session.events import EventT
from agentls.session.records import plan_records
from agentls.workspace.interface import CommandGrant, ToolContext, ToolDefinition

log = logging.getLogger(__name__)

DENIALS_BEFORE_STOP = 3
CRASHES_BEFORE_STOP = 2
FAILURES_BEFORE_STOP = 6


class AuditLog(Protocol):
    def append(self, event: EventT) -> EventT:
        """Write ``event`` (a session event model) stamped with its seq; return it."""
        ...

    def stage(self, event: EventT) -> EventT:
        """As `append`, written at the latest with the next append or when the run
        next waits: for an event followed at once by another, never by an effect."""
        ...

    def turn_boundary(self) -> None:
        """Make what was appended durable (fsync) without blocking the run."""
        ...


@dataclass(frozen=True, slots=True)
class StopSignal:
    """The runtime asks the loop to end the run (policy, repeated failure, or a plan no
    one was there to approve: then ``text`` is the run's answer)."""

    reason: Literal[
        TerminalReason.PERMISSION_DENIED, TerminalReason.FATAL_TOOL_ERROR, TerminalReason.COMPLETED
    ]
    detail: str
    text: str | None = None


class ToolRuntime:
    def __init__(
        self,
        *,
        registry: ToolRegistry,
        policy: PermissionPolicy,
        approver: Approver,
        context: ToolContext,
        audit: AuditLog,
        observer: RunObserver,
        call_timeout_seconds: float = 660.0,
        rule_saver: Callable[[Sequence[Rule]], str | None] | None = None,
        plan_agreed: Callable[[str], None] | None = None,
        settings_hooks: RunHooks | None = None,
    ) -> None:
        self.registry = registry
        self.policy = policy
        self.approver = approver
        self.context = context
        self.audit = audit
        self.observer = observer
        self.call_timeout_seconds = call_timeout_seconds
        self.rule_saver = rule_saver  # "always allow in this workspace" writes through it
        self.plan_agreed = plan_agreed  # told the plan a person approved (pinned in context)
        # The hooks of the settings: PreToolUse and PostToolUse around each call, and
        # Notification while a question waits.
        self.settings_hooks = settings_hooks or HookEngine().bind(audit)
        self.run_id: str | None = None
        self.stop: StopSignal | None = None
        self._denials = 0
        self._crashes = 0
        self._failures = 0
        self._approval_lock = asyncio.Lock()
        self._deadlines = CallDeadlines()
        # Observations of the current batch, kept so an abort can close the rest.
        self.completed: dict[str, Observation] = {}

    def begin_run(self, run_id: str) -> None:
        self.run_id = self.settings_hooks.run_id = run_id
        self.stop = None
        self._denials = self._crashes = self._failures = 0

    async def execute_batch(self, intents: Sequence[ToolIntent], turn: int) -> list[Observation]:
        """In the model's order; only a run of adjacent read-only calls runs concurrently,
        so a read that follows a write in the same response sees the write."""
        self.completed = {}
        if len(intents) == 1 and self.stop is None:  # the common turn: one call, no grouping
            return [await self.execute(intents[0], turn)]
        results: list[Observation] = []
        for group in _runs_of_reads(intents, self._is_read_only):
            if self.stop is not None:
                results.extend(self._not_run(i, turn, self.stop.detail) for i in group)
            elif len(group) == 1:  # no tasks to spawn for the common single call
                results.append(await self.execute(group[0], turn))
            else:
                results.extend(await asyncio.gather(*(self.execute(i, turn) for i in group)))
        return results

    def _not_run(self, intent: ToolIntent, turn: int, why: str) -> Observation:
        return self._record(
            intent, turn, shaping.error(intent, ErrorCode.CANCELLED, f"not run: {why}")
        )

    def _is_read_only(self, intent: ToolIntent) -> bool:
        tool = self.registry.get(intent.name)
        return tool is not None and tool.risk is Risk.READ

    async def execute(self, intent: ToolIntent, turn: int) -> Observation:
        with calling(intent):  # the workspace reads which call an edit belongs to
            return await self._execute(intent, turn)

    async def _execute(self, intent: ToolIntent, turn: int) -> Observation:
        parsed = self._parse(intent)
        summary = parsed[1] if isinstance(parsed, tuple) else intent.name
        self.audit.stage(ev.ToolIntent(  # written with its decision, before the call
            run=self.run_id, turn=turn,
            call_id=intent.call_id, name=intent.name, input=intent.input, summary=summary,
        ))  # fmt: skip
        notify(self.observer.tool_started, turn, intent, summary)
        try:
            if isinstance(parsed, Observation):
                observation = parsed
            else:
                observation = await self._gate_and_run(intent, turn, parsed[0], parsed[2])
        except asyncio.CancelledError:
            aborted = shaping.error(intent, ErrorCode.CANCELLED, "run aborted")
            self._record(intent, turn, aborted)
            notify(self.observer.tool_finished, turn, aborted, summary)
            raise
        self._record(intent, turn, observation)
        notify(self.observer.tool_finished, turn, observation, summary)
        return observation

    def _parse(
        self, intent: ToolIntent
    ) -> tuple[ToolDefinition[Any], str, BaseModel] | Observation:
        """Find the tool and validate the input: the tool, a summary line and the arguments."""
        tool = self.registry.get(intent.name)
        if tool is None:
            names = ", ".join(self.registry.names)
            return shaping.error(
                intent, ErrorCode.NOT_FOUND, f"no tool named {intent.name!r}; tools: {names}"
            )
        if INVALID_JSON_KEY in intent.input:
            return shaping.error(
                intent,
                ErrorCode.INVALID_INPUT,
                "the tool input was not valid JSON (the response may have been cut off)",
                retryable=True,
            )
        try:
            args = tool.input_model.model_validate(intent.input)
        except ValidationError as exc:
            message = shaping.describe_validation_error(tool.name, exc)
            return shaping.error(intent, ErrorCode.INVALID_INPUT, message, retryable=True)
        try:
            summary = tool.summary(args)
        except Exception:  # a summary is for people; a bug in it must not stop the call
            summary = tool.name
        return tool, summary, args

    async def _gate_and_run(
        self, intent: ToolIntent, turn: int, tool: ToolDefinition[Any], args: BaseModel
    ) -> Observation:
        try:
            if tool.validate is not None:
                tool.validate(args, self.context)
        except ToolError as exc:
            return self._tool_error(intent, exc)
        if not is_visible(tool.risk, self.policy.mode, read_only_hint=tool.read_only_hint):
            return self._deny(
                intent, turn, f"{tool.name} is not available in {self.policy.mode.value} mode"
            )
        subject = tool.subject(args)
        decision = self.policy.evaluate(tool.name, tool.risk, tool.subject_kind, subject)
        if tool.more_subjects is not None:
            try:
                subject, decision = await strictest(
                    self.policy, tool, args, self.context, subject, decision
                )
            except ToolError as exc:
                return self._tool_error(intent, exc)
        if decision.verdict is not Verdict.DENY and self.settings_hooks.has("PreToolUse"):
            decision = await self._hooks_before(intent, turn, tool, subject, decision)
        if decision.verdict is Verdict.ASK:
            final = await self._ask(intent, turn, tool, args, subject, decision)
        else:  # decided by a rule or the mode: nothing to wait for
            final = RuntimeDecision(intent.call_id, decision.verdict, decision.source)
        grant = None
        if tool.subject_kind == "command" and final.verdict is Verdict.ALLOW:
            call = CallRef(run_id=self.run_id, turn=turn, call_id=intent.call_id)
            grant = self._grant(subject, decision, final, call)
        self._log_decision(turn, final, grant)
        if final.verdict is Verdict.DENY:
            if decision.stop_run:
                self.stop = StopSignal(
                    TerminalReason.PERMISSION_DENIED, f"{decision.source} stops the run"
                )
            return self._deny(intent, turn, self._denial_message(final))
        self._denials = 0
        context = self.context if grant is None else dataclasses.replace(self.context, grant=grant)
        if tool.risk is Risk.PLAN:  # the person's word on the plan, before the call tells it
            answer = await self._review_plan(intent, turn, tool, args)
            context = dataclasses.replace(context, plan_answer=answer)
        notify(self.observer.tool_running, turn, intent)
        observation = await self._run(intent, turn, tool, args, context)
        if self.settings_hooks.has("PostToolUse"):
            observation = await self._hooks_after(intent, turn, tool, args, observation)
        return observation

    async def _review_plan(
        self, intent: ToolIntent, turn: int, tool: ToolDefinition[Any], args: BaseModel
    ) -> PlanAnswer:
        """Put the plan to the person. A switch is theirs alone (an automatic approver
        always keeps planning) and is logged as a mode change; the run goes on in the new
        mode. No one to ask: the plan is the run's answer and the mode stays plan."""
        plan = tool.summary(args)  # stands in if the tool cannot say it
        if tool.detail is not None:
            with contextlib.suppress(ToolError):
                plan = await tool.detail(args, self.context)
        proposal = PlanProposal(intent.call_id, plan)
        async with self._approval_lock:
            notify(self.observer.plan_proposed, turn, proposal)
            if self.approver.person:  # someone waits to answer: Notification hooks say so
                self.settings_hooks.waiting(turn, "agentls has a plan for you to approve")
            answer = await self.approver.review_plan(proposal)
        self.audit.append(ev.PlanReviewed(
            run=self.run_id, turn=turn, call_id=intent.call_id, choice=answer.choice.value,
            note=answer.note, person=answer.person, plan=plan,
        ))  # fmt: skip
        if answer.switches:
            mode = Mode(answer.choice.value)
            self.policy.mode = mode  # the next turn's tools are this mode's
            self.audit.append(ev.ModeChanged(run=self.run_id, turn=turn, mode=mode.value))
            notify(self.observer.mode_changed, turn, mode.value)
            if self.plan_agreed is not None:
                self.plan_agreed(plan)
        elif not answer.person and self.stop is None:
            self.stop = StopSignal(
                TerminalReason.COMPLETED,
                "the plan was proposed with no one to approve it: it is the answer, and the "
                "session stays in plan mode",
                text=plan,
            )
        return answer

    async def _hooks_before(
        self,
        intent: ToolIntent,
        turn: int,
        tool: ToolDefinition[Any],
        subject: str,
        decision: PolicyDecision,
    ) -> PolicyDecision:
        """The PreToolUse hooks' answer weighed against the gate's (hook_gate.py)."""
        verdict = await self.settings_hooks.before_tool(
            turn, intent.call_id, tool.name, intent.input
        )
        if verdict is None:
            return decision
        if verdict.stop is not None:
            why = f"a PreToolUse hook stopped the run: {verdict.stop}"
            if self.stop is None:
                self.stop = StopSignal(TerminalReason.PERMISSION_DENIED, why)
            return PolicyDecision(Verdict.DENY, why)
        return hook_gate.weigh(self.policy, tool, subject, decision, verdict)

    async def _hooks_after(
        self,
        intent: ToolIntent,
        turn: int,
        tool: ToolDefinition[Any],
        args: BaseModel,
        observation: Observation,
    ) -> Observation:
        """The PostToolUse hooks' notes after the call's result; a file a hook changed
        after the call wrote it (a formatter) is named, so the model reads it again."""
        path = tool.subject(args) if tool.subject_kind == "path" and tool.risk is Risk.WRITE else ""
        before = await self._version(path)
        after = await self.settings_hooks.after_tool(
            turn, intent.call_id, tool.name, intent.input, observation
        )
        notes = list(after.notes)
        if path and await self._version(path) != before:
            notes.append(
                f"A PostToolUse hook changed {path} after {tool.name} wrote it: read it again "
                "before you edit it."
            )
        if after.stop is not None and self.stop is None:
            why = f"a PostToolUse hook stopped the run: {after.stop}"
            self.stop = StopSignal(TerminalReason.PERMISSION_DENIED, why)
        if not notes:
            return observation
        content = "\n\n".join([observation.content, *notes])
        return dataclasses.replace(observation, content=content)

    async def _version(self, path: str) -> str | None:
        if not path:
            return None
        try:
            return await self.context.workspace.version(path)
        except (ToolError, OSError):
            return None

    def _grant(
        self, subject: str, decision: PolicyDecision, final: RuntimeDecision, call: CallRef
    ) -> CommandGrant:
        """What an allowed command runs: as written when a person allowed what they saw,
        else the gate's own spelling of the line it judged."""
        by_person = final.answer is not None and self.approver.person
        if by_person or decision.runs is None:
            return CommandGrant(subject, subject, by_person and decision.writes_control, call)
        return CommandGrant(subject, decision.runs, call=call)

    async def _ask(
        self,
        intent: ToolIntent,
        turn: int,
        tool: ToolDefinition[Any],
        args: BaseModel,
        subject: str,
        decision: PolicyDecision,
    ) -> RuntimeDecision:
        """The person decides a call the rules left to them."""
        rules = self.policy.suggested_rules(tool.name, tool.subject_kind, subject, tool.risk)
        shown = ", ".join(str(r) for r in rules)
        detail = ""
        if tool.detail is not None:
            try:
                detail = await tool.detail(args, self.context)
            except ToolError as exc:
                detail = f"(cannot show details: {exc})"
        request = ApprovalRequest(
            call_id=intent.call_id,
            tool=tool.name,
            risk=tool.risk,
            summary=tool.summary(args),
            detail=detail,
            suggested_rule=shown,
            rules=tuple(str(r) for r in rules),
            reason=decision.source,
            person_only=decision.person_only,
        )
        async with self._approval_lock:
            notify(self.observer.approval_asked, turn, request)
            if self.approver.person:  # someone waits to answer: Notification hooks say so
                self.settings_hooks.waiting(
                    turn, f"agentls needs your permission to use {tool.name}: {request.summary}"
                )
            answer = await self.approver.approve(request)
            notify(self.observer.approval_answered, turn, request, answer)
        verdict = Verdict.ALLOW if answer.allows else Verdict.DENY
        source = f"{decision.source}; answered {answer.value}"
        added = self.policy.take_answer(answer, rules)
        if added:
            kind = "deny rule" if added.deny else "rule"
            source += f" (session {kind} {shown} added)"
            # Logged: the session keeps them when it is opened again.
            self.audit.append(ev.SessionRules(
                run=self.run_id, turn=turn,
                allow=[str(r) for r in added.allow], deny=[str(r) for r in added.deny],
            ))  # fmt: skip
        saver = self.rule_saver  # a call no rule can cover is allowed once, nothing saved
        if answer is ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE and saver is not None and rules:
            try:
                saved_in = saver(rules)
            except (ConfigError, OSError) as exc:  # the person's yes stands; the rule is not kept
                log.warning("rule %s not saved: %s", shown, exc)
                source += f" (not saved: {exc})"
            else:
                if saved_in:
                    source += f" (saved in {saved_in})"
        return RuntimeDecision(intent.call_id, verdict, source, answer)

    def _log_decision(
        self, turn: int, decision: RuntimeDecision, grant: CommandGrant | None
    ) -> None:
        runs = grant.line if grant is not None and grant.line != grant.judged else None
        self.audit.append(ev.Decision(
            run=self.run_id, turn=turn, call_id=decision.call_id,
            verdict=decision.verdict, source=decision.source, answer=decision.answer,
            runs=runs,
        ))  # fmt: skip

    def _denial_message(self, decision: RuntimeDecision) -> str:
        if decision.answer is not None and not decision.answer.allows:
            why = self.approver.reason
            return f"the user denied this call ({why})" if why else "the user denied this call"
        return f"denied by {decision.source}"

    def _deny(self, intent: ToolIntent, turn: int, message: str) -> Observation:
        self._denials += 1
        if self._denials >= DENIALS_BEFORE_STOP and self.stop is None:
            self.stop = StopSignal(
                TerminalReason.PERMISSION_DENIED,
                f"{DENIALS_BEFORE_STOP} tool calls in a row were denied",
            )
        return shaping.error(intent, ErrorCode.PERMISSION_DENIED, message)

    async def _run(
        self,
        intent: ToolIntent,
        turn: int,
        tool: ToolDefinition[Any],
        args: BaseModel,
        context: ToolContext,
    ) -> Observation:
        deadline = self._deadlines.start(self.call_timeout_seconds)
        timed_out = False
        try:
            try:
                output = await tool.run(args, context)
            finally:  # however the call ends, its limit goes with it
                timed_out = deadline is not None and deadline.end()
        except asyncio.CancelledError:
            if not timed_out:
                raise  # the run was cancelled, not just this call
            return self._timed_out(intent, tool)
        except ToolError as exc:
            if timed_out:
                return self._timed_out(intent, tool)
            return self._tool_error(intent, exc)
        except Exception as exc:  # a tool bug or a broken workspace, not the model's fault
            if timed_out:
                return self._timed_out(intent, tool)
            log.exception("tool %s crashed", tool.name)
            self._crashes += 1
            if self._crashes >= CRASHES_BEFORE_STOP:
                self.stop = StopSignal(
                    TerminalReason.FATAL_TOOL_ERROR, f"{tool.name} crashed: {exc!r}"
                )
            return self._failure(
                intent,
                shaping.error(intent, ErrorCode.EXECUTION_FAILED, f"{tool.name} crashed: {exc!r}"),
            )
        if timed_out:  # the tool swallowed its cancellation
            return self._timed_out(intent, tool)
        self._crashes = self._failures = 0
        if output.plan is not None:
            self._plan_updated(intent, turn, output.plan)
        return shaping.ok(intent, output.text, context.output_limit, dict(output.meta))

    def _plan_updated(self, intent: ToolIntent, turn: int, plan: Plan) -> None:
        """A checklist is a fact for the person: logged, and shown by every face."""
        self.audit.append(ev.PlanUpdated(
            run=self.run_id, turn=turn, call_id=intent.call_id, plan=plan_records(plan),
            explanation=plan.explanation,
        ))  # fmt: skip
        notify(self.observer.plan_updated, turn, plan)

    def _timed_out(self, intent: ToolIntent, tool: ToolDefinition[Any]) -> Observation:
        return self._failure(
            intent,
            shaping.error(
                intent,
                ErrorCode.TIMEOUT,
                f"{tool.name} did not finish within {self.call_timeout_seconds:g} s",
                retryable=True,
            ),
        )

    def _tool_error(self, intent: ToolIntent, exc: ToolError) -> Observation:
        observation = shaping.error(
            intent, exc.code, str(exc), retryable=exc.retryable, limit=self.context.output_limit
        )
        if exc.code is ErrorCode.PERMISSION_DENIED:
            self._denials += 1
            if self._denials >= DENIALS_BEFORE_STOP and self.stop is None:
                self.stop = StopSignal(
                    TerminalReason.PERMISSION_DENIED,
                    f"{DENIALS_BEFORE_STOP} tool calls in a row were refused",
                )
            return observation
        return self._failure(intent, observation)

    def _failure(self, intent: ToolIntent, observation: Observation) -> Observation:
        self._failures += 1
        if self._failures >= FAILURES_BEFORE_STOP and self.stop is None:
            self.stop = StopSignal(
                TerminalReason.FATAL_TOOL_ERROR,
                f"{FAILURES_BEFORE_STOP} tool calls in a row failed",
            )
        return observation

    def _record(self, intent: ToolIntent, turn: int, observation: Observation) -> Observation:
        self.audit.stage(ev.ObservationEvent(
            run=self.run_id, turn=turn, call_id=observation.call_id,
            name=observation.name, ok=observation.ok, content=observation.content,
            error=observation.error, retryable=observation.retryable, meta=observation.meta,
        ))  # fmt: skip
        self.completed[observation.call_id] = observation
        return observation


def _runs_of_reads(
    intents: Sequence[ToolIntent], is_read_only: Callable[[ToolIntent], bool]
) -> list[list[ToolIntent]]:
    """Split into groups in order: each run of adjacent reads together, every other call alone."""
    groups: list[list[ToolIntent]] = []
    for intent in intents:
        if is_read_only(intent) and groups and is_read_only(groups[-1][0]):
            groups[-1].append(intent)
        else:
            groups.append([intent])
    return groups
