"""The hooks of a session, fired at their events: each run logged, read by Claude Code's
rules, and what it says handed back to the part that fired it.

`HookEngine` is one session's (its hooks, run live or played back from a log);
`RunHooks` binds it to a run's log and observer. The tool runtime fires `PreToolUse`,
`PostToolUse` and `Notification` (a question waits for the person), the loop
`UserPromptSubmit`, `Stop` and `PreCompact`, the conversation `SessionStart` and
`SessionEnd`. The engine decides nothing about permissions: it says what the hooks
answered, and the runtime weighs that against the gate.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agentls.contracts.observer import HookNotice, NullObserver, RunObserver, notify
from agentls.contracts.tooling import Observation
from agentls.hooks import claude
from agentls.hooks.config import HookCommand
from agentls.hooks.outcome import HookAnswer, HookResult, Permission, interpret
from agentls.session import events as ev
from agentls.session.events import EventT
from agentls.workspace.redaction import mask_secrets

log = logging.getLogger(__name__)
_SHOWN_COMMAND = 80  # characters of a hook's command in what the model and person read


class HookSource(Protocol):
    """Which hooks an event runs, and running one: live, or from a recording."""

    def has(self, event: str) -> bool: ...

    def matching(
        self, event: str, names: Sequence[str], call_id: str | None, turn: int | None
    ) -> Sequence[HookCommand]: ...

    async def run(self, hook: HookCommand, payload: dict[str, Any]) -> HookResult: ...


class HookLog(Protocol):
    def append(self, event: EventT) -> EventT: ...


class _NoSource:
    def has(self, event: str) -> bool:
        return False

    def matching(
        self, event: str, names: Sequence[str], call_id: str | None, turn: int | None
    ) -> Sequence[HookCommand]:
        return ()

    async def run(self, hook: HookCommand, payload: dict[str, Any]) -> HookResult:
        raise AssertionError("no hooks to run")


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """What every hook's input says of the session."""

    session_id: str = ""
    transcript_path: str = ""  # the session's log (agentls's JSONL, not Claude Code's)
    root: Path = Path(".")


@dataclass(frozen=True, slots=True)
class ToolVerdict:
    """What the `PreToolUse` hooks answered for one call (the strictest of them)."""

    permission: Permission | None
    source: str  # which hooks, and why: for the log, the model and the person
    stop: str | None = None  # a hook asked to end the run


@dataclass(frozen=True, slots=True)
class AfterTool:
    notes: tuple[str, ...] = ()  # for the model, after the call's result
    stop: str | None = None


@dataclass(frozen=True, slots=True)
class PromptVerdict:
    blocked: str | None = None  # the prompt is dropped: why, for the person
    context: tuple[str, ...] = ()  # for the model, after the prompt


class HookEngine:
    def __init__(self, source: HookSource | None = None, facts: SessionFacts | None = None):
        self.source: HookSource = source or _NoSource()
        self.facts = facts or SessionFacts()

    def bind(
        self,
        audit: HookLog,
        observer: RunObserver | None = None,
        mode: Callable[[], str] = lambda: "default",
    ) -> RunHooks:
        return RunHooks(self, audit, observer or NullObserver(), mode)


class RunHooks:
    """The session's hooks as one run (or the session's start or end) fires them."""

    def __init__(
        self, engine: HookEngine, audit: HookLog, observer: RunObserver, mode: Callable[[], str]
    ) -> None:
        self.engine = engine
        self.audit = audit
        self.observer = observer
        self.mode = mode
        self.run_id: str | None = None
        self._waiting: set[asyncio.Task[None]] = set()

    def has(self, event: str) -> bool:
        return self.engine.source.has(event)

    # --- the tool runtime's events -----------------------------------------

    async def before_tool(
        self, turn: int, call_id: str, tool: str, given: dict[str, Any]
    ) -> ToolVerdict | None:
        fields = self._tool_fields(call_id, tool, given)
        answers = await self._fire("PreToolUse", turn, claude.tool_names(tool), fields, call_id)
        if not answers:
            return None
        stop = next((a.stop for _, a in answers if a.stop is not None), None)
        for permission in ("deny", "ask", "allow"):
            said = [(h, a) for h, a in answers if a.permission == permission]
            if said:
                why = "; ".join(_said(h, "PreToolUse", a.reason) for h, a in said)
                return ToolVerdict(permission, why, stop)
        return ToolVerdict(None, "", stop) if stop is not None else None

    async def after_tool(
        self, turn: int, call_id: str, tool: str, given: dict[str, Any], observation: Observation
    ) -> AfterTool:
        fields = self._tool_fields(call_id, tool, given)
        error = observation.error.value if observation.error is not None else None
        fields["tool_response"] = claude.tool_response(
            tool, fields["tool_input"], observation.ok, observation.content, error,
            dict(observation.meta),
        )  # fmt: skip
        answers = await self._fire("PostToolUse", turn, claude.tool_names(tool), fields, call_id)
        notes = [_said(h, "PostToolUse", a.reason) for h, a in answers if a.block]
        notes += [_said(h, "PostToolUse", a.context) for h, a in answers if a.context]
        stop = next((a.stop for _, a in answers if a.stop is not None), None)
        return AfterTool(tuple(notes), stop)

    def waiting(self, turn: int, message: str) -> None:
        """A question waits for the person: `Notification` hooks run beside it (they hold
        nothing up; the run waits for them before it ends)."""
        if not self.has("Notification"):
            return
        fields = {"message": message, "notification_type": "permission_prompt"}
        task = asyncio.ensure_future(
            self._fire_quietly("Notification", turn, ("permission_prompt",), fields)
        )
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    # --- the loop's events ---------------------------------------------------

    async def prompt_submitted(self, prompt: str) -> PromptVerdict:
        answers = await self._fire("UserPromptSubmit", 0, (), {"prompt": prompt})
        blocked = [(h, a) for h, a in answers if a.block or a.stop is not None]
        if blocked:
            why = "; ".join(
                _said(h, "UserPromptSubmit", a.reason or a.stop or "") for h, a in blocked
            )
            return PromptVerdict(blocked=why)
        return PromptVerdict(context=_contexts("UserPromptSubmit", answers))

    async def stopping(self, turn: int, active: bool) -> str | None:
        """Why the model should go on instead of stopping (a hook blocked the stop)."""
        answers = await self._fire("Stop", turn, (), {"stop_hook_active": active})
        kept = [_said(h, "Stop", a.reason) for h, a in answers if a.block and a.stop is None]
        return "\n".join(kept) if kept else None

    async def compacting(self, turn: int, trigger: str) -> None:
        fields = {"trigger": trigger, "custom_instructions": ""}
        await self._fire("PreCompact", turn, (trigger,), fields)

    # --- the conversation's events -----------------------------------------

    async def session_started(self, source: str) -> tuple[str, ...]:
        answers = await self._fire("SessionStart", 0, (source,), {"source": source})
        return _contexts("SessionStart", answers)

    async def session_ended(self, reason: str) -> None:
        await self._fire("SessionEnd", None, (reason,), {"reason": reason})

    async def settle(self, *, abandon: bool = False) -> None:
        """Wait for the `Notification` hooks still running (each bounded by its timeout);
        ``abandon``: stop them instead (their processes are killed)."""
        if abandon:
            for task in self._waiting:
                task.cancel()
        while self._waiting:
            await asyncio.gather(*self._waiting, return_exceptions=True)

    # --- firing ----------------------------------------------------------------

    def _tool_fields(self, call_id: str, tool: str, given: dict[str, Any]) -> dict[str, Any]:
        return {
            "tool_name": claude.hook_tool_name(tool),
            "tool_input": claude.tool_input(tool, given, self.engine.facts.root),
            "tool_use_id": call_id,
        }

    async def _fire_quietly(
        self, event: str, turn: int, names: Sequence[str], fields: dict[str, Any]
    ) -> None:
        try:
            await self._fire(event, turn, names, fields)
        except Exception:
            log.exception("%s hooks failed", event)

    async def _fire(
        self,
        event: str,
        turn: int | None,
        names: Sequence[str],
        fields: dict[str, Any],
        call_id: str | None = None,
    ) -> list[tuple[HookCommand, HookAnswer]]:
        source = self.engine.source
        if not source.has(event):
            return []
        hooks = source.matching(event, names, call_id, turn)
        if not hooks:
            return []
        payload = self._payload(event, fields)
        results = await asyncio.gather(*(self._run_one(h, payload) for h in hooks))
        answers = []
        for hook, result in zip(hooks, results, strict=True):
            answer = interpret(event, result, hook.timeout)
            self.audit.append(ev.HookRun(
                run=self.run_id, turn=turn, hook_event=event, command=_masked(hook.command),
                managed=hook.managed, call_id=call_id, timeout_seconds=hook.timeout,
                exit_code=result.exit_code,
                timed_out=result.timed_out, failure=result.failure, stdout=result.stdout,
                stderr=result.stderr, duration_ms=result.duration_ms, outcome=answer.outcome,
            ))  # fmt: skip
            self._tell(turn, event, hook, answer)
            answers.append((hook, answer))
        return answers

    async def _run_one(self, hook: HookCommand, payload: dict[str, Any]) -> HookResult:
        """One hook's result, its output bounded and masked as the log keeps it."""
        try:
            result = await self.engine.source.run(hook, payload)
        except Exception as exc:  # a bug here must not fail the run: the hook failed
            log.exception("hook %r", hook.command)
            return HookResult(None, failure=f"did not run: {exc!r}")
        return HookResult(
            result.exit_code, _masked(result.stdout), _masked(result.stderr), result.timed_out,
            result.failure, result.duration_ms,
        )  # fmt: skip

    def _payload(self, event: str, fields: dict[str, Any]) -> dict[str, Any]:
        facts = self.engine.facts
        mode = self.mode()
        return {
            "session_id": facts.session_id,
            "transcript_path": facts.transcript_path,
            "cwd": str(facts.root),
            "permission_mode": claude.PERMISSION_MODES.get(mode, mode),
            "hook_event_name": event,
            **fields,
        }

    def _tell(self, turn: int | None, event: str, hook: HookCommand, answer: HookAnswer) -> None:
        shown = _short(hook.command)
        if answer.error is not None:
            then = "; the call asks you" if event == "PreToolUse" else "; the run goes on"
            text = f"{answer.error}{then}"
            notify(self.observer.hook_notice, turn or 0, HookNotice(event, shown, text))
        if answer.message:
            notice = HookNotice(event, shown, answer.message, error=False)
            notify(self.observer.hook_notice, turn or 0, notice)


class RecordedHooks:
    """A run's hooks as its log recorded them: each firing gets the hooks that ran then
    and what they gave, nothing is run (`agentls replay`). `Notification` hooks decided
    nothing and are not played."""

    def __init__(self, records: Sequence[ev.HookRun]) -> None:
        self._groups: dict[tuple[str, str | None, int | None], list[list[ev.HookRun]]] = {}
        last: tuple[str, str | None, int | None] | None = None
        for record in records:
            if record.hook_event == "Notification":
                continue
            key = (record.hook_event, record.call_id, record.turn)
            firings = self._groups.setdefault(key, [])
            if key != last or not firings:
                firings.append([])
            firings[-1].append(record)
            last = key
        self._events = {key[0] for key in self._groups}
        self._pending: dict[int, HookResult] = {}

    def has(self, event: str) -> bool:
        return event in self._events

    def matching(
        self, event: str, names: Sequence[str], call_id: str | None, turn: int | None
    ) -> Sequence[HookCommand]:
        firings = self._groups.get((event, call_id, turn))
        if not firings:
            return ()
        hooks = []
        for record in firings.pop(0):
            hook = HookCommand(
                event, record.command, timeout=record.timeout_seconds, managed=record.managed
            )
            self._pending[id(hook)] = HookResult(
                record.exit_code, record.stdout, record.stderr, record.timed_out,
                record.failure, record.duration_ms,
            )  # fmt: skip
            hooks.append(hook)
        return hooks

    async def run(self, hook: HookCommand, payload: dict[str, Any]) -> HookResult:
        return self._pending.pop(id(hook))


def _said(hook: HookCommand, event: str, text: str) -> str:
    return f"{event} hook `{_short(hook.command)}`: {text}" if text else f"{event} hook"


def _contexts(event: str, answers: list[tuple[HookCommand, HookAnswer]]) -> tuple[str, ...]:
    return tuple(_said(h, event, a.context) for h, a in answers if a.context)


def _short(command: str) -> str:
    command = " ".join(_masked(command).split())
    return command if len(command) <= _SHOWN_COMMAND else command[: _SHOWN_COMMAND - 1] + "…"


def _masked(text: str) -> str:
    return mask_secrets(text)[0] if text else text
