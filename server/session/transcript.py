"""A readable markdown transcript of a session, rendered from its events.

Plain enough for a terminal (``agentls show``), structured enough for an editor's
markdown preview. Everything shown comes from the log; nothing is re-run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentls.session import events as ev

OBSERVATION_LINES = 20
SUMMARY_LINES = 40
_LINE_WIDTH = 160
_ARG_WIDTH = 60
_SUMMARY_WIDTH = 120


def render_transcript(events: Iterable[Mapping[str, Any]]) -> str:
    renderer = _Renderer()
    for event in events:
        renderer.feed(event)
    return renderer.finish()


@dataclass(slots=True)
class _Call:
    name: str
    input: Mapping[str, Any]
    decision: Mapping[str, Any] | None = None
    summary: str | None = None


@dataclass(slots=True)
class _Run:
    prompt: str
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    calls: dict[str, _Call] = field(default_factory=dict)


class _Renderer:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.show_cost = True  # False for a scripted model (see _header)
        self.run: _Run | None = None
        self.run_count = 0
        self._session_id = "SESSION_ID"

    def feed(self, event: Mapping[str, Any]) -> None:
        kind = event.get("kind")
        run = self.run
        if run is not None and isinstance(event.get("turn"), int):
            run.turns = max(run.turns, event["turn"])
        if kind == ev.SESSION_STARTED:
            self._session_id = str(event.get("sessionId", self._session_id))
            self._header(event)
        elif kind == ev.RUN_STARTED:
            self._end_run(None)
            self._start_run(str(event.get("prompt", "")))
        elif kind == ev.MODE_CHANGED:
            self._para(f"_Mode: {event.get('mode')}_")
        elif kind == ev.CHECKPOINT:
            self._checkpoint(event)
        elif kind == ev.UNDO:
            what = ", ".join([*event.get("restored", []), *event.get("removed", [])]) or "nothing"
            if event.get("done"):
                self._para(f"↺ Undid turn {event.get('turn')}: {what}")
            else:
                conflicts = ", ".join(event.get("conflicts", []))
                self._para(f"↺ Undo of turn {event.get('turn')} stopped: {conflicts} changed since")
        elif run is None:
            return  # run events without their run_started: nothing to hang them on
        elif kind == ev.USER_MESSAGE:
            text = _message_text(event)
            if text.strip() and text.strip() != run.prompt.strip():
                self._para(_quote(text))
        elif kind == ev.MODEL_OUTPUT:
            self._model_output(event, run)
        elif kind == ev.USAGE:
            self._add_usage(event, run)
        elif kind == ev.CONTEXT_SUMMARY:
            self._context_summary(event)
        elif kind == ev.TOOL_INTENT:
            call_id = str(event.get("callId"))
            summary = event.get("summary")
            run.calls[call_id] = _Call(
                str(event.get("name")),
                _mapping(event.get("input")),
                summary=summary if isinstance(summary, str) else None,
            )
        elif kind == ev.DECISION:
            call = run.calls.get(str(event.get("callId")))
            if call is not None:
                call.decision = event
        elif kind == ev.OBSERVATION:
            call = run.calls.pop(str(event.get("callId")), None)
            name = str(event.get("name"))
            self._call(call or _Call(name, {}), event)
        elif kind == ev.PROBLEMS:
            note = str(event.get("note") or "")
            self._para("\n".join(f"    ⚠ {_cut(line, _LINE_WIDTH)}" for line in note.splitlines()))
        elif kind == ev.RUN_FINISHED:
            self._end_run(_result_line(_mapping(event.get("result")), self.show_cost))
        elif kind == ev.RUN_CLOSED:
            reason = f"{event.get('reason', 'interrupted')}: {event.get('detail', '')}"
            self._end_run(f"**Run did not finish** ({reason.rstrip(': ')})")

    def finish(self) -> str:
        self._end_run(None)
        return "\n".join(self.out).rstrip() + "\n"

    def _header(self, event: Mapping[str, Any]) -> None:
        # A scripted model's price is nominal (for budget tests): no dollars shown.
        self.show_cost = not str(event.get("model", "")).startswith("scripted:")
        self.out += [
            f"# Session {event.get('sessionId', '?')}",
            "",
            f"- Workspace: {event.get('workspace', '?')}",
            f"- Model: {event.get('model', '?')}",
            f"- Created: {event.get('createdAt', '?')}",
            "",
        ]

    def _start_run(self, prompt: str) -> None:
        self.run_count += 1
        first_line = prompt.strip().splitlines()[0] if prompt.strip() else "(empty prompt)"
        self._para(f"## Run {self.run_count} — {_cut(first_line, _SUMMARY_WIDTH)}")
        self._para(_quote(prompt))
        self.run = _Run(prompt)

    def _end_run(self, result_line: str | None) -> None:
        run = self.run
        if run is None:
            return
        for call in run.calls.values():
            self._call(call, None)
        if result_line is None:
            tokens = f"{run.input_tokens:,} in / {run.output_tokens:,} out tokens"
            cost = f", {_cost(run.cost_usd)}" if self.show_cost else ""
            result_line = (
                f"**Run did not finish** (interrupted) — {_turns(run.turns)} so far, {tokens}{cost}"
            )
        self._para(result_line)
        self.run = None

    def _model_output(self, event: Mapping[str, Any], run: _Run) -> None:
        message = _mapping(event.get("message"))
        for block in message.get("content") or []:
            kind = block.get("type") if isinstance(block, Mapping) else None
            if kind == "text" and str(block.get("text", "")).strip():
                self._para(str(block["text"]).strip())
            elif kind == "thinking":
                first = (str(block.get("thinking", "")).strip().splitlines() or [""])[0]
                self._para(f"> (thinking) {_cut(first, _SUMMARY_WIDTH)}…")
            elif kind == "redacted_thinking":
                self._para("> (thinking, redacted)")
            elif kind == "tool_use":
                # Remembered so a call the run never got to still shows up.
                call_id = str(block.get("id"))
                run.calls[call_id] = _Call(str(block.get("name")), _mapping(block.get("input")))

    def _context_summary(self, event: Mapping[str, Any]) -> None:
        # Shown as what it is: the model's summary, not part of the record above.
        too_long = event.get("reason") == "prompt_too_long"
        why = "the model found the prompt too long" if too_long else "the context passed its limit"
        self._para(
            f"_Context compacted ({why}): from here on the model sees messages "
            f"1–{event.get('upToMessage', '?')} only as this summary, written by the model:_"
        )
        lines = str(event.get("text") or "").strip().splitlines()
        shown = [f"> {_cut(line, _LINE_WIDTH)}".rstrip() for line in lines[:SUMMARY_LINES]]
        if len(lines) > SUMMARY_LINES:
            shown.append(f"> … {len(lines) - SUMMARY_LINES} more lines")
        self._para("\n".join(shown) or "> (empty)")

    def _add_usage(self, event: Mapping[str, Any], run: _Run) -> None:
        usage = _mapping(event.get("usage"))
        run.input_tokens += int(usage.get("input_tokens", 0))
        run.output_tokens += int(usage.get("output_tokens", 0))
        cost = event.get("costUsd")
        run.cost_usd = (
            run.cost_usd + float(cost)
            if run.cost_usd is not None and isinstance(cost, int | float)
            else None
        )

    def _checkpoint(self, event: Mapping[str, Any]) -> None:
        changed = event.get("changed") or []
        if not changed:
            return
        names = ", ".join(str(c.get("path")) for c in changed if isinstance(c, Mapping))
        crashed = " (the run was interrupted)" if event.get("interrupted") else ""
        self._para(
            f"_Turn {event.get('number')} changed {names}{crashed}; "
            f"undo with `agentls undo {self._session_id} --turn {event.get('number')}`_"
        )

    def _call(self, call: _Call, observation: Mapping[str, Any] | None) -> None:
        head = f"→ {call.summary or f'{call.name} {_summarise_input(call.input)}'}".rstrip()
        if call.decision is not None:
            head += f" — {_decision(call.decision)}"
        self._para(head)
        if observation is None:
            self._para("    (no result: the run stopped first)")
            return
        body: list[str] = []
        error = observation.get("error")
        if error:
            retry = "retryable" if observation.get("retryable") else "not retryable"
            body.append(f"✗ {error} ({retry})")
        content = str(observation.get("content") or "")
        lines = content.splitlines() or ([] if error else ["(no output)"])
        body += [_cut(line, _LINE_WIDTH) for line in lines[:OBSERVATION_LINES]]
        if len(lines) > OBSERVATION_LINES:
            body.append(f"… {len(lines) - OBSERVATION_LINES} more lines")
        self._para("\n".join(f"    {line}" for line in body))

    def _para(self, text: str) -> None:
        self.out += [text, ""]


def _result_line(result: Mapping[str, Any], show_cost: bool = True) -> str:
    usage = _mapping(result.get("usage"))
    cost = f", {_cost(usage.get('costUsd'))}" if show_cost else ""
    line = (
        f"**Result:** {result.get('terminalReason', 'unknown')} — "
        f"{_turns(int(result.get('turns', 0) or 0))}, "
        f"{int(usage.get('inputTokens', 0)):,} in / {int(usage.get('outputTokens', 0)):,} out "
        f"tokens{cost}"
    )
    cached = int(usage.get("cacheReadTokens", 0) or 0), int(usage.get("cacheWriteTokens", 0) or 0)
    if any(cached):
        line += f" ({cached[0]:,} read from / {cached[1]:,} written to the prompt cache)"
    detail = str(result.get("detail") or "").strip()
    return f"{line}\n{detail}" if detail else line


def _decision(decision: Mapping[str, Any]) -> str:
    verdict = {"allow": "allowed", "deny": "denied"}.get(str(decision.get("verdict")), "?")
    why = [str(decision.get("source") or "")]
    answer = str(decision.get("answer") or "")
    if answer and answer not in why[0]:  # the source may name the answer already
        why.append(f"answer {answer}")
    reasons = ", ".join(w for w in why if w)
    return f"{verdict} ({reasons})" if reasons else verdict


def _summarise_input(args: Mapping[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        text = value if isinstance(value, str) and value and " " not in value else None
        if text is None or "\n" in text:
            text = json.dumps(value, ensure_ascii=False, default=str)
        parts.append(f"{key}={_cut(text, _ARG_WIDTH)}")
    return _cut(" ".join(parts), _SUMMARY_WIDTH)


def _message_text(event: Mapping[str, Any]) -> str:
    content = _mapping(event.get("message")).get("content") or []
    texts = [b for b in content if isinstance(b, Mapping) and b.get("type") == "text"]
    return "".join(str(b.get("text", "")) for b in texts)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.strip().splitlines() or [""])


def _turns(count: int) -> str:
    return f"{count} turn{'' if count == 1 else 's'}"


def _cost(cost: object) -> str:
    return f"${float(cost):.4f}" if isinstance(cost, int | float) else "cost unknown"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
