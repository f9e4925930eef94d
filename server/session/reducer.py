"""Folding session events into SessionState.

The live ConversationManager and resume both go through ``Reducer.apply``, so a
resumed session is rebuilt by exactly the code that built it. Messages come only
from the events that record them verbatim (user_message, model_output,
tool_results); nothing is inferred from summaries. A compaction summary
(context_summary) is kept aside, for the context layer to resume from, and never
becomes part of the history.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.state import ContextSummary, RunRecord, SessionState


class Reducer:
    def __init__(self, state: SessionState | None = None) -> None:
        self.state = state if state is not None else SessionState()
        self._runs: dict[str, RunRecord] = {r.run_id: r for r in self.state.runs}

    def apply(self, event: SessionEvent) -> None:
        state = self.state
        if event.seq > state.last_seq:
            state.last_seq = event.seq
        run = None if event.run is None else self._runs.get(event.run)
        turn = event.turn
        if run is not None and turn is not None and turn > run.turns:
            run.turns = turn

        if isinstance(event, ev.UserMessage | ev.ModelOutput | ev.ToolResults):
            state.messages.append(event.message)
        elif isinstance(event, ev.UsageEvent):
            self._add_usage(event, run)
        elif isinstance(event, ev.SessionStarted):
            state.session_id = event.session_id
            state.workspace = event.workspace
            state.model = event.model
            state.created_at = event.created_at
        elif isinstance(event, ev.RunStarted):
            run_id = str(event.run)
            record = RunRecord(run_id, event.prompt, event.ts, mode=event.mode)
            self._runs[run_id] = record
            state.runs.append(record)
        elif isinstance(event, ev.ContextSummary):
            state.context_summary = ContextSummary(
                event.seq, event.text, event.pinned, event.up_to_message
            )
        elif isinstance(event, ev.ModeChanged):
            state.mode = event.mode
        elif isinstance(event, ev.SessionRules):
            _add_new(state.session_allow, event.allow)
            _add_new(state.session_deny, event.deny)
        elif isinstance(event, ev.Notice):
            state.notices.add(event.topic)
        elif isinstance(event, ev.ProcessEvent) and event.action == "started":
            number = event.id.removeprefix("p")
            if number.isdigit():
                state.last_process = max(state.last_process, int(number))
        elif isinstance(event, ev.RunFinished) and run is not None:
            run.result = event.result.model_dump(mode="json")
            run.turns = event.result.turns
        elif isinstance(event, ev.RunClosed) and run is not None:
            run.result = {"terminalReason": event.reason, "detail": event.detail, "closed": True}

    def _add_usage(self, event: ev.UsageEvent, run: RunRecord | None) -> None:
        usage, cost = event.usage, event.cost_usd
        state = self.state
        state.usage += usage
        state.cost_usd = _add_cost(state.cost_usd, cost)
        if run is not None:
            run.usage += usage
            run.cost_usd = _add_cost(run.cost_usd, cost)


def _add_new(kept: list[str], added: list[str]) -> None:
    kept.extend(rule for rule in dict.fromkeys(added) if rule not in kept)


def _add_cost(total: float | None, cost: float | None) -> float | None:
    if total is None or cost is None:
        return None
    return total + cost


def reduce(events: Iterable[SessionEvent]) -> SessionState:
    reducer = Reducer()
    for event in events:
        reducer.apply(event)
    return reducer.state
