"""One run as OpenTelemetry spans, metrics and log records, read from the events it writes.

The loop and the runtime write every fact of a run to the session log; `WatchedAudit`
hands each event on to the log first and then to `RunWatch`, which turns it into
telemetry, and `WatchedObserver` tells it when the model's first token came. Nothing
here decides anything or touches the world: what it raises is logged and dropped, and
it only ever adds to the SDK's queues (exports happen on the SDK's threads).

Names follow the GenAI semantic conventions where they have one: a run is an
`invoke_agent agentls` span, each model request a `chat MODEL` span (its tokens as
`gen_ai.usage.*`), each tool call an `execute_tool TOOL` span. Every span and record
carries `session.id` and `agentls.run.id`, which `agentls show` takes. No prompt text,
tool input or output, file contents or command output is recorded unless
``log_content`` is set, and then masked as tool output is.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.observer import HookNotice, RunObserver
from agentls.contracts.outcomes import RunResult
from agentls.contracts.tooling import Observation, ToolIntent
from agentls.contracts.usage import Usage
from agentls.session import events as ev
from agentls.session.events import EventT
from agentls.telemetry.export import Exporters
from agentls.workspace.redaction import mask_secrets

log = logging.getLogger("agentls.telemetry")

CONTENT_LIMIT = 4096  # characters of masked content a record keeps, with logContent
_DETAIL_LIMIT = 300  # characters of an error's message
_ERRORS = frozenset({"model_error", "fatal_tool_error", "timeout", "budget_exceeded"})
_MODE_SOURCES = ("bypass mode", "accept-edits mode", "plan mode", "reads are allowed",
                 "edits need review", "edit goes to review", "commands need approval",
                 "external tools need approval")  # fmt: skip


def decision_source(source: str, answer: ApprovalAnswer | None, person: bool) -> str:
    """Who decided: `person`, `approver` (--yes, or no one to ask), `rule`, `mode`, `hook`,
    or `gate` (the gate's own judgement: a control file, a line it cannot read)."""
    if answer is not None:
        return "person" if person else "approver"
    if source.startswith(("hook", "PreToolUse hook", "a PreToolUse hook")):
        return "hook"
    if source.startswith(("deny rule", "ask rule", "allow rule", "session rule")):
        return "mode" if source.endswith("(bypass mode)") else "rule"
    if source.startswith(_MODE_SOURCES):
        return "mode"
    return "gate"


def _split_model(model_id: str) -> tuple[str, str]:
    provider, _, name = model_id.partition(":")
    return provider, name or model_id


def _ns(ts: float) -> int:
    return int(ts * 1e9) if ts > 0 else time.time_ns()


@dataclass
class _Call:
    span: Span
    tool: str
    started: int
    verdict: str | None = None
    source: str | None = None


@dataclass
class RunWatch:
    """The telemetry of one session's runs, fed with the events they write."""

    exporters: Exporters
    session_id: str
    model_id: str
    person: bool  # the approver's answers are a person's
    log_content: bool = False
    run_id: str | None = None
    mode: str = ""
    _run: Span | None = None
    _chat: Span | None = None
    _chat_started: int = 0
    _first_token: bool = False
    _turn: int = 0
    _calls: dict[str, _Call] = field(default_factory=dict)
    errors: int = 0

    # --- feeding ----------------------------------------------------------------

    def seen(self, event: ev.Event) -> None:
        """One event the run wrote; never raises."""
        try:
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(self, event)
        except Exception:  # telemetry never breaks a run
            self.errors += 1
            if self.errors == 1:
                log.warning("telemetry: an event could not be recorded", exc_info=True)

    def first_token(self) -> None:
        try:
            if self._chat is None or self._first_token:
                return
            self._first_token = True
            waited = (time.time_ns() - self._chat_started) / 1e9
            self._chat.set_attribute("agentls.time_to_first_token_s", waited)
            self.exporters.instruments.first_token.record(waited, self._model_attributes())
        except Exception:
            self.errors += 1

    # --- the events ---------------------------------------------------------------

    def _user_message(self, event: ev.UserMessage) -> None:
        self.run_id = event.run
        provider, model = _split_model(self.model_id)
        self._run = self.exporters.tracer.start_span(
            "invoke_agent agentls",
            kind=SpanKind.INTERNAL,
            start_time=_ns(event.ts),
            attributes={
                **self._ids(),
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "agentls",
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
                "agentls.mode": self.mode,
            },
        )
        if self.session_id not in self.exporters.sessions:
            self.exporters.sessions.add(self.session_id)
            self.exporters.instruments.sessions.add(1, {"gen_ai.provider.name": provider})
        text = str(getattr(event.message, "text", "") or "")
        attributes: dict[str, Any] = {**self._ids(), "prompt.length": len(text)}
        body = self._content(text) if self.log_content else None
        self._record("agentls.user_prompt", SeverityNumber.INFO, attributes, body=body, ts=event.ts)

    def _model_request(self, event: ev.ModelRequest) -> None:
        self._end_chat(None, event.ts)  # a retry after an error left one open
        provider, model = _split_model(event.model)
        self._turn = event.turn or 0
        self._chat_started = _ns(event.ts)
        self._first_token = False
        self._chat = self.exporters.tracer.start_span(
            f"chat {model}",
            context=self._in_run(),
            kind=SpanKind.CLIENT,
            start_time=self._chat_started,
            attributes={
                **self._ids(),
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
                "agentls.turn": self._turn,
                "agentls.request.messages": event.messages,
                "agentls.request.tools": len(event.tools),
            },
        )

    def _usage(self, event: ev.UsageEvent) -> None:
        usage, attributes = event.usage, self._model_attributes()
        if event.purpose is not None:
            attributes["agentls.purpose"] = event.purpose
        for kind, count in _token_kinds(usage):
            if count:
                self.exporters.instruments.tokens.add(count, {**attributes, "type": kind})
        for kind, count in (("input", usage.input_tokens), ("output", usage.output_tokens)):
            self.exporters.instruments.token_usage.record(
                count, {**attributes, "gen_ai.token.type": kind}
            )
        if event.cost_usd is not None:
            self.exporters.instruments.cost.add(event.cost_usd, attributes)
        if self._chat is not None and event.purpose is None:
            self._chat.set_attributes({
                "gen_ai.usage.input_tokens": usage.input_tokens,
                "gen_ai.usage.output_tokens": usage.output_tokens,
                "gen_ai.usage.cache_read.input_tokens": usage.cache_read_tokens,
                "gen_ai.usage.cache_creation.input_tokens": usage.cache_write_tokens,
            })  # fmt: skip
            if event.cost_usd is not None:
                self._chat.set_attribute("agentls.cost_usd", event.cost_usd)

    def _model_output(self, event: ev.ModelOutput) -> None:
        if self._chat is not None:
            self._chat.set_attribute("gen_ai.response.finish_reasons", [event.stop_reason])
        self._end_chat(None, event.ts)

    def _tool_intent(self, event: ev.ToolIntent) -> None:
        attributes: dict[str, Any] = {
            **self._ids(),
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.name,
            "gen_ai.tool.call.id": event.call_id,
            "agentls.turn": event.turn or 0,
        }
        if self.log_content:
            attributes["agentls.tool.input"] = self._content(
                json.dumps(event.input, ensure_ascii=False, default=str)
            )
        started = _ns(event.ts)
        span = self.exporters.tracer.start_span(
            f"execute_tool {event.name}", context=self._in_run(), kind=SpanKind.INTERNAL,
            start_time=started, attributes=attributes,
        )  # fmt: skip
        self._calls[event.call_id] = _Call(span, event.name, started)

    def _decision(self, event: ev.Decision) -> None:
        call = self._calls.get(event.call_id)
        tool = call.tool if call is not None else ""
        verdict = event.verdict.value
        source = decision_source(event.source, event.answer, self.person)
        if call is not None:
            call.verdict, call.source = verdict, source
            call.span.set_attributes({"agentls.decision.verdict": verdict,
                                      "agentls.decision.source": source})  # fmt: skip
        attributes = {"gen_ai.tool.name": tool, "verdict": verdict, "source": source}
        self.exporters.instruments.decisions.add(1, attributes)
        record: dict[str, Any] = {**self._ids(), **attributes, "gen_ai.tool.call.id": event.call_id}
        if event.answer is not None:
            record["answer"] = event.answer.value
        if self.log_content:
            record["reason"] = self._content(event.source)
        severity = SeverityNumber.WARN if verdict == "deny" else SeverityNumber.INFO
        self._record("agentls.tool_decision", severity, record, ts=event.ts,
                     span=call.span if call is not None else None)  # fmt: skip

    def _observation(self, event: ev.ObservationEvent) -> None:
        call = self._calls.pop(event.call_id, None)
        if call is None:
            return
        ended = _ns(event.ts)
        outcome = event.error.value if event.error is not None else "ok"
        call.span.set_attributes({
            "agentls.tool.outcome": outcome,
            "agentls.tool.duration_ms": round((ended - call.started) / 1e6, 3),
        })  # fmt: skip
        if self.log_content:
            call.span.set_attribute("agentls.tool.output", self._content(event.content))
        if event.error is not None:
            call.span.set_status(Status(StatusCode.ERROR, outcome))
            if event.error.value != "permission_denied":
                self._record("agentls.tool_error", SeverityNumber.WARN,
                             {**self._ids(), "gen_ai.tool.name": call.tool, "error.type": outcome,
                              "gen_ai.tool.call.id": event.call_id},
                             ts=event.ts, span=call.span)  # fmt: skip
        self._end(call.span, ended)

    def _run_finished(self, event: ev.RunFinished) -> None:
        result = event.result
        reason = result.terminal_reason
        failed = reason in _ERRORS
        self._end_chat(reason if reason == "model_error" else None, event.ts)
        for call in self._calls.values():
            call.span.set_attribute("agentls.tool.outcome", "cancelled")
            self._end(call.span, _ns(event.ts))
        self._calls.clear()
        detail = mask_secrets(result.detail)[0][:_DETAIL_LIMIT]
        if failed:
            self._record("agentls.error", SeverityNumber.ERROR,
                         {**self._ids(), "error.type": reason, "agentls.run.detail": detail},
                         ts=event.ts, span=self._run)  # fmt: skip
        self.exporters.instruments.runs.add(1, {"agentls.run.reason": reason,
                                                "agentls.mode": self.mode})  # fmt: skip
        run, self._run = self._run, None
        if run is None:
            return
        usage = result.usage
        run.set_attributes({
            "agentls.run.reason": reason,
            "agentls.run.turns": result.turns,
            "gen_ai.usage.input_tokens": usage.input_tokens,
            "gen_ai.usage.output_tokens": usage.output_tokens,
            "gen_ai.usage.cache_read.input_tokens": usage.cache_read_tokens,
            "gen_ai.usage.cache_creation.input_tokens": usage.cache_write_tokens,
        })  # fmt: skip
        if usage.cost_usd is not None:
            run.set_attribute("agentls.cost_usd", usage.cost_usd)
        if failed:
            run.set_status(Status(StatusCode.ERROR, reason))
        self._end(run, _ns(event.ts))

    # --- helpers ------------------------------------------------------------------

    def _ids(self) -> dict[str, str]:
        return {"session.id": self.session_id, "gen_ai.conversation.id": self.session_id,
                "agentls.run.id": self.run_id or ""}  # fmt: skip

    def _model_attributes(self) -> dict[str, Any]:
        provider, model = _split_model(self.model_id)
        return {"gen_ai.provider.name": provider, "gen_ai.request.model": model}

    def _in_run(self) -> Any:
        return trace.set_span_in_context(self._run) if self._run is not None else None

    def _end_chat(self, error: str | None, ts: float) -> None:
        chat, self._chat = self._chat, None
        if chat is None:
            return
        ended = _ns(ts)
        self.exporters.instruments.operation.record(
            (ended - self._chat_started) / 1e9, self._model_attributes()
        )
        if error is not None:
            chat.set_status(Status(StatusCode.ERROR, error))
        self._end(chat, ended)

    def _end(self, span: Span, at: int) -> None:
        span.end(end_time=at)
        self.exporters.span_ended()

    def _content(self, text: str) -> str:
        return mask_secrets(text[: CONTENT_LIMIT * 2])[0][:CONTENT_LIMIT]

    def _record(
        self,
        name: str,
        severity: SeverityNumber,
        attributes: dict[str, Any],
        *,
        ts: float,
        body: str | None = None,
        span: Span | None = None,
    ) -> None:
        context = trace.set_span_in_context(span) if span is not None else self._in_run()
        self.exporters.logger.emit(
            timestamp=_ns(ts), context=context, severity_number=severity,
            body=body if body is not None else name, attributes=attributes, event_name=name,
        )  # fmt: skip
        self.exporters.record_emitted()


def _token_kinds(usage: Usage) -> tuple[tuple[str, int], ...]:
    return (
        ("input", usage.input_tokens),
        ("output", usage.output_tokens),
        ("cache_read", usage.cache_read_tokens),
        ("cache_creation", usage.cache_write_tokens),
    )


_HANDLERS: dict[type[ev.Event], Any] = {
    ev.UserMessage: RunWatch._user_message,
    ev.ModelRequest: RunWatch._model_request,
    ev.UsageEvent: RunWatch._usage,
    ev.ModelOutput: RunWatch._model_output,
    ev.ToolIntent: RunWatch._tool_intent,
    ev.Decision: RunWatch._decision,
    ev.ObservationEvent: RunWatch._observation,
    ev.RunFinished: RunWatch._run_finished,
}


class WatchedAudit:
    """The run's log, with each event handed to the watch after it is written (or staged)."""

    def __init__(self, inner: Any, watch: RunWatch) -> None:
        self.inner, self.watch = inner, watch

    def append(self, event: EventT) -> EventT:
        written: EventT = self.inner.append(event)
        self.watch.seen(written)
        return written

    def stage(self, event: EventT) -> EventT:
        staged: EventT = self.inner.stage(event)
        self.watch.seen(staged)
        return staged

    def turn_boundary(self) -> None:
        self.inner.turn_boundary()


class WatchedObserver:
    """The face's observer, and the watch told of the model's first token."""

    def __init__(self, inner: RunObserver, watch: RunWatch) -> None:
        self.inner, self.watch = inner, watch

    def text_delta(self, turn: int, text: str) -> None:
        self.watch.first_token()
        self.inner.text_delta(turn, text)

    def thinking_delta(self, turn: int, text: str) -> None:
        self.watch.first_token()
        self.inner.thinking_delta(turn, text)

    def tool_started(self, turn: int, intent: ToolIntent, summary: str) -> None:
        self.inner.tool_started(turn, intent, summary)

    def tool_running(self, turn: int, intent: ToolIntent) -> None:
        self.inner.tool_running(turn, intent)

    def tool_finished(self, turn: int, observation: Observation, summary: str) -> None:
        self.inner.tool_finished(turn, observation, summary)

    def approval_asked(self, turn: int, request: ApprovalRequest) -> None:
        self.inner.approval_asked(turn, request)

    def approval_answered(
        self, turn: int, request: ApprovalRequest, answer: ApprovalAnswer
    ) -> None:
        self.inner.approval_answered(turn, request, answer)

    def usage(self, turn: int, total: Usage, cost_usd: float | None) -> None:
        self.inner.usage(turn, total, cost_usd)

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        self.inner.hook_notice(turn, notice)

    def run_finished(self, result: RunResult) -> None:
        self.inner.run_finished(result)
