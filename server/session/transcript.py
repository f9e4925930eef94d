"""A readable markdown transcript of a session, rendered from its events.

Plain enough for a terminal (``agentls show``), structured enough for an editor's
markdown preview (`write_transcript` keeps it beside the log, in the state folder).
Everything shown comes from the log; nothing is re-run. Asks are numbered from 1 in the
order they were made ("Ask N", the number `agentls rewind` and `agentls fork` take);
an ask a rewind took back stays, struck through and marked.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.contracts.messages import Message, TextBlock, ThinkingBlock, ToolUseBlock
from agentls.contracts.plans import Plan
from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.labels import request_words
from agentls.session.records import RunResultRecord, plan_of

if TYPE_CHECKING:
    from agentls.session.store import SessionStore

OBSERVATION_LINES = 20
SUMMARY_LINES = 40
_LINE_WIDTH = 160
_ARG_WIDTH = 60
_SUMMARY_WIDTH = 120


def write_transcript(store: SessionStore, session_id: str) -> Path:
    """The session's markdown transcript, written next to its log (reads the whole log:
    call it off an event loop)."""
    from agentls.session.reader import read_events
    from agentls.workspace.atomic import replace_atomically

    source = store.path_for(session_id)
    folder = store.state_dir / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{session_id}.md"
    # Whole, even when a run's end and a request to show it write it at once.
    replace_atomically(target, render_transcript(read_events(source)))
    return target


def render_transcript(events: Iterable[SessionEvent]) -> str:
    events = list(events)
    taken_back = {
        run_id
        for event in events
        if isinstance(event, ev.Rewound) and event.conversation
        for run_id in event.runs
    }
    renderer = _Renderer(taken_back)
    for event in events:
        renderer.feed(event)
    return renderer.finish()


@dataclass(slots=True)
class _Call:
    name: str
    input: Mapping[str, Any]
    decision: ev.Decision | None = None
    summary: str | None = None


@dataclass(slots=True)
class _Run:
    prompt: str
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    calls: dict[str, _Call] = field(default_factory=dict)
    plan: Plan | None = None  # the model's checklist as it last set it in this run
    steered_at: set[int | None] = field(default_factory=set)  # turns given the person's words


class _Renderer:
    def __init__(self, taken_back: set[str]) -> None:
        self.taken_back = taken_back  # the runs of asks a rewind took back
        self.out: list[str] = []
        self.show_cost = True  # False for a scripted model (see _header)
        self.run: _Run | None = None
        self.run_count = 0
        self._session_id = "SESSION_ID"

    def feed(self, event: SessionEvent) -> None:
        run = self.run
        if run is not None and event.turn is not None:
            run.turns = max(run.turns, event.turn)
        if isinstance(event, ev.SessionStarted):
            self._session_id = event.session_id
            self._header(event)
        elif isinstance(event, ev.RunStarted):
            self._end_run(None)
            self._start_run(event.prompt, event.run in self.taken_back)
        elif isinstance(event, ev.Rewound):
            self._end_run(None)
            self._rewound(event)
        elif isinstance(event, ev.ModeChanged):
            self._para(f"_Mode: {event.mode}_")
        elif isinstance(event, ev.Checkpoint):
            self._checkpoint(event)
        elif isinstance(event, ev.Undo):
            what = ", ".join([*event.restored, *event.removed]) or "nothing"
            if event.done:
                self._para(f"↺ Undid turn {event.turn}: {what}")
                if event.refused:
                    self._para(f"↺ Not undone (a link leads out): {', '.join(event.refused)}")
            else:
                conflicts = ", ".join(event.conflicts)
                self._para(f"↺ Undo of turn {event.turn} stopped: {conflicts} changed since")
        elif isinstance(event, ev.ProcessEvent):
            if event.action != "started":  # its start is the run_command call
                how = f"exit code {event.exit_code}"
                how = how if event.action == "exited" else f"by {event.by}; {how}"
                self._para(f"⚙ Background process {event.id} {event.action} ({how})")
        elif isinstance(event, ev.HookRun):
            self._para(_hook_line(event))
        elif run is None:
            return  # run events without their run_started: nothing to hang them on
        elif isinstance(event, ev.UserMessage):
            for image in event.message.images:  # by hash: the bytes are in the session's folder
                kind = image.media_type.removeprefix("image/")
                self._para(f"> (image: {kind}, {image.width}x{image.height}, {image.sha256[:12]})")
            text = event.message.text
            # The person's words sent during the run are shown with their `steered` events.
            steered = event.turn in run.steered_at
            if not steered and text.strip() and text.strip() != run.prompt.strip():
                self._para(_quote(text))
        elif isinstance(event, ev.ModelOutput):
            self._model_output(event.message, run)
        elif isinstance(event, ev.UsageEvent):
            self._add_usage(event, run)
        elif isinstance(event, ev.ContextSummary):
            self._context_summary(event)
        elif isinstance(event, ev.ToolIntent):
            run.calls[event.call_id] = _Call(event.name, event.input, summary=event.summary)
        elif isinstance(event, ev.Decision):
            call = run.calls.get(event.call_id)
            if call is not None:
                call.decision = event
        elif isinstance(event, ev.ObservationEvent):
            call = run.calls.pop(event.call_id, None)
            self._call(call or _Call(event.name, {}), event)
        elif isinstance(event, ev.PlanUpdated):
            run.plan = plan_of(event.plan, event.explanation)
            self._para(f"☰ Plan updated ({run.plan.done}/{len(run.plan.steps)} done)")
        elif isinstance(event, ev.PlanReviewed):
            self._plan_reviewed(event)
        elif isinstance(event, ev.Steered):
            run.steered_at.add(event.turn)
            self._para(f"_The person, while the agent worked:_\n{_quote(event.text)}")
        elif isinstance(event, ev.Problems):
            lines = event.note.splitlines()
            self._para("\n".join(f"    ⚠ {_cut(line, _LINE_WIDTH)}" for line in lines))
        elif isinstance(event, ev.RunFinished):
            self._end_run(_result_line(event.result, self.show_cost))
        elif isinstance(event, ev.RunClosed):
            reason = f"{event.reason}: {event.detail}"
            self._end_run(f"**Run did not finish** ({reason.rstrip(': ')})")

    def finish(self) -> str:
        self._end_run(None)
        return "\n".join(self.out).rstrip() + "\n"

    def _header(self, event: ev.SessionStarted) -> None:
        # A scripted model's price is nominal (for budget tests): no dollars shown.
        self.show_cost = not event.model.startswith("scripted:")
        self.out += [
            f"# Session {event.session_id}",
            "",
            f"- Workspace: {event.workspace}",
            f"- Model: {event.model}",
            f"- Created: {event.created_at}",
        ]
        origin = event.forked_from
        if origin is not None:
            where = "whole" if origin.ask is None else f"before its ask {origin.ask}"
            held = {0: "none of its asks", 1: "ask 1 below is its history"}.get(
                origin.asks, f"asks 1–{origin.asks} below are its history"
            )
            self.out.append(f"- Forked from: {origin.session_id}, {where} ({held})")
        self.out.append("")

    def _start_run(self, prompt: str, taken_back: bool) -> None:
        self.run_count += 1
        words = request_words(prompt)
        first_line = words.splitlines()[0] if words else "(empty prompt)"
        title = f"Ask {self.run_count} — {_cut(first_line, _SUMMARY_WIDTH)}"
        if taken_back:
            self._para(f"## ~~{title}~~ (taken back)")
            self._para("_A rewind took this ask back: the model no longer sees it._")
        else:
            self._para(f"## {title}")
        self._para(_quote(prompt))
        self.run = _Run(prompt)

    def _rewound(self, event: ev.Rewound) -> None:
        asks = _asks(event.asks)
        if event.conversation:
            head = f"↶ Rewound to before ask {event.ask}: {asks or 'nothing'} taken back"
        else:
            head = f"↶ Files put back as they were before ask {event.ask}"
        parts = []
        if event.files:
            if event.restored:
                parts.append(f"restored {', '.join(event.restored)}")
            if event.removed:
                parts.append(f"removed {', '.join(event.removed)}")
            if event.kept:
                parts.append(f"kept {', '.join(event.kept)} (changed since)")
            if event.refused:
                parts.append(f"not put back (a link leads out): {', '.join(event.refused)}")
            if not parts:
                parts.append("no file to put back")
        else:
            parts.append("files left as they are")
        self._para(f"{head}; {'; '.join(parts)}")

    def _end_run(self, result_line: str | None) -> None:
        run = self.run
        if run is None:
            return
        for call in run.calls.values():
            self._call(call, None)
        if run.plan is not None:  # the final plan of the run
            lines = [f"- {line}" for line in run.plan.checklist()]
            why = f"\n_{run.plan.explanation}_" if run.plan.explanation else ""
            self._para("**Plan:**\n" + "\n".join(lines) + why)
        if result_line is None:
            tokens = f"{run.input_tokens:,} in / {run.output_tokens:,} out tokens"
            cost = f", {_cost(run.cost_usd)}" if self.show_cost else ""
            result_line = (
                f"**Run did not finish** (interrupted) — {_turns(run.turns)} so far, {tokens}{cost}"
            )
        self._para(result_line)
        self.run = None

    def _model_output(self, message: Message, run: _Run) -> None:
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                self._para(block.text.strip())
            elif isinstance(block, ThinkingBlock) and block.redacted_data is not None:
                self._para("> (thinking, redacted)")
            elif isinstance(block, ThinkingBlock):
                first = (block.thinking.strip().splitlines() or [""])[0]
                self._para(f"> (thinking) {_cut(first, _SUMMARY_WIDTH)}…")
            elif isinstance(block, ToolUseBlock):
                # Remembered so a call the run never got to still shows up.
                run.calls[block.id] = _Call(block.name, block.input)

    def _plan_reviewed(self, event: ev.PlanReviewed) -> None:
        if event.choice != "keep-planning" and event.person:
            answer = f"the person switched to {event.choice} mode"
        elif event.person:
            answer = "the person asked to keep planning" + (f": {event.note}" if event.note else "")
        else:
            answer = "no one was there to approve it: it is the run's answer"
        self._para(f"◆ Plan proposed — {answer}:\n{_quote(event.plan)}")

    def _context_summary(self, event: ev.ContextSummary) -> None:
        # Shown as what it is: the model's summary, not part of the record above.
        too_long = event.reason == "prompt_too_long"
        why = "the model found the prompt too long" if too_long else "the context passed its limit"
        self._para(
            f"_Context compacted ({why}): from here on the model sees messages "
            f"1–{event.up_to_message} only as this summary, written by the model:_"
        )
        lines = event.text.strip().splitlines()
        shown = [f"> {_cut(line, _LINE_WIDTH)}".rstrip() for line in lines[:SUMMARY_LINES]]
        if len(lines) > SUMMARY_LINES:
            shown.append(f"> … {len(lines) - SUMMARY_LINES} more lines")
        self._para("\n".join(shown) or "> (empty)")

    def _add_usage(self, event: ev.UsageEvent, run: _Run) -> None:
        run.input_tokens += event.usage.input_tokens
        run.output_tokens += event.usage.output_tokens
        cost = event.cost_usd
        run.cost_usd = (
            run.cost_usd + cost if run.cost_usd is not None and cost is not None else None
        )

    def _checkpoint(self, event: ev.Checkpoint) -> None:
        if not event.changed:
            return
        names = ", ".join(c.path for c in event.changed)
        crashed = " (the run was interrupted)" if event.interrupted else ""
        self._para(
            f"_Turn {event.number} changed {names}{crashed}; "
            f"undo with `agentls undo {self._session_id} --turn {event.number}`_"
        )

    def _call(self, call: _Call, observation: ev.ObservationEvent | None) -> None:
        head = f"→ {call.summary or f'{call.name} {_summarise_input(call.input)}'}".rstrip()
        if call.decision is not None:
            head += f" — {_decision(call.decision)}"
        self._para(head)
        if observation is None:
            self._para("    (no result: the run stopped first)")
            return
        body: list[str] = []
        error = observation.error
        if error:
            retry = "retryable" if observation.retryable else "not retryable"
            body.append(f"✗ {error.value} ({retry})")
        content = observation.content
        lines = content.splitlines() or ([] if error else ["(no output)"])
        body += [_cut(line, _LINE_WIDTH) for line in lines[:OBSERVATION_LINES]]
        if len(lines) > OBSERVATION_LINES:
            body.append(f"… {len(lines) - OBSERVATION_LINES} more lines")
        self._para("\n".join(f"    {line}" for line in body))

    def _para(self, text: str) -> None:
        self.out += [text, ""]


def _result_line(result: RunResultRecord, show_cost: bool = True) -> str:
    usage = result.usage
    cost = f", {_cost(usage.cost_usd)}" if show_cost else ""
    line = (
        f"**Result:** {result.terminal_reason} — {_turns(result.turns)}, "
        f"{usage.input_tokens:,} in / {usage.output_tokens:,} out tokens{cost}"
    )
    cached = usage.cache_read_tokens, usage.cache_write_tokens
    if any(cached):
        line += f" ({cached[0]:,} read from / {cached[1]:,} written to the prompt cache)"
    detail = result.detail.strip()
    return f"{line}\n{detail}" if detail else line


def _hook_line(event: ev.HookRun) -> str:
    """One hook run: how it ended and what it decided."""
    if event.failure is not None:
        ended = event.failure
    elif event.timed_out:
        ended = f"timed out after {event.timeout_seconds:g} s"
    else:
        ended = f"exit {event.exit_code}"
    decided = f", {event.outcome}" if event.outcome and event.outcome != "error" else ""
    command = _cut(" ".join(event.command.split()), _LINE_WIDTH)
    return f"⚑ {event.hook_event} hook `{command}`: {ended}{decided}"


def _decision(decision: ev.Decision) -> str:
    verdict = {"allow": "allowed", "deny": "denied"}.get(decision.verdict.value, "?")
    why = [decision.source]
    answer = "" if decision.answer is None else decision.answer.value
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


def _asks(numbers: list[int]) -> str:
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f"ask {numbers[0]}"
    return "asks " + ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.strip().splitlines() or [""])


def _turns(count: int) -> str:
    return f"{count} turn{'' if count == 1 else 's'}"


def _cost(cost: object) -> str:
    return f"${float(cost):.4f}" if isinstance(cost, int | float) else "cost unknown"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
