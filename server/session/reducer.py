"""Folding session events into SessionState.

The live ConversationManager and resume both go through ``Reducer.apply``, so a
resumed session is rebuilt by exactly the code that built it. Messages come only
from the events that record them verbatim (user_message, model_output,
tool_results); nothing is inferred from summaries. A compaction summary
(context_summary) is kept aside, for the context layer to resume from, and never
becomes part of the history.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from agentls.contracts.messages import message_from_dict
from agentls.contracts.usage import Usage
from agentls.session import events as ev
from agentls.session.state import ContextSummary, RunRecord, SessionState

logger = logging.getLogger(__name__)

_MESSAGE_KINDS = frozenset({ev.USER_MESSAGE, ev.MODEL_OUTPUT, ev.TOOL_RESULTS})


class Reducer:
    def __init__(self, state: SessionState | None = None) -> None:
        self.state = state if state is not None else SessionState()
        self._runs: dict[str, RunRecord] = {r.run_id: r for r in self.state.runs}

    def apply(self, event: Mapping[str, Any]) -> None:
        state = self.state
        kind = event.get("kind")
        seq = event.get("seq")
        if isinstance(seq, int) and seq > state.last_seq:
            state.last_seq = seq
        run = self._runs.get(str(event.get("run")))
        turn = event.get("turn")
        if run is not None and isinstance(turn, int) and turn > run.turns:
            run.turns = turn

        if kind in _MESSAGE_KINDS:
            self._append_message(event)
        elif kind == ev.SESSION_STARTED:
            state.session_id = str(event.get("sessionId", ""))
            state.workspace = str(event.get("workspace", ""))
            state.model = str(event.get("model", ""))
            state.created_at = str(event.get("createdAt", ""))
        elif kind == ev.RUN_STARTED:
            run_id = str(event.get("run"))
            record = RunRecord(run_id, str(event.get("prompt", "")), float(event.get("ts", 0.0)))
            settings = event.get("settings")
            mode = event.get("mode")  # older logs: only the settings' mode
            if not isinstance(mode, str) and isinstance(settings, Mapping):
                mode = settings.get("mode")
            record.mode = mode if isinstance(mode, str) else None
            self._runs[run_id] = record
            state.runs.append(record)
        elif kind == ev.USAGE:
            self._add_usage(event, run)
        elif kind == ev.CONTEXT_SUMMARY:
            self._keep_summary(event)
        elif kind == ev.MODE_CHANGED:
            state.mode = str(event.get("mode"))
        elif kind == ev.RUN_FINISHED and run is not None:
            result = event.get("result")
            run.result = dict(result) if isinstance(result, Mapping) else {}
            turns = run.result.get("turns")
            if isinstance(turns, int):
                run.turns = turns
        elif kind == ev.RUN_CLOSED and run is not None:
            run.result = {
                "terminalReason": str(event.get("reason", "interrupted")),
                "detail": str(event.get("detail", "")),
                "closed": True,
            }

    def _append_message(self, event: Mapping[str, Any]) -> None:
        try:
            self.state.messages.append(message_from_dict(event["message"]))
        except (KeyError, TypeError, ValueError) as exc:
            logger.warning("session event seq %s: unreadable message (%s)", event.get("seq"), exc)

    def _keep_summary(self, event: Mapping[str, Any]) -> None:
        seq, text, up_to = event.get("seq"), event.get("text"), event.get("upToMessage")
        if isinstance(seq, int) and isinstance(text, str) and isinstance(up_to, int):
            pinned = event.get("pinned")
            self.state.context_summary = ContextSummary(
                seq, text, pinned if isinstance(pinned, str) else "", up_to
            )

    def _add_usage(self, event: Mapping[str, Any], run: RunRecord | None) -> None:
        raw = event.get("usage")
        usage = Usage.from_dict(dict(raw)) if isinstance(raw, Mapping) else Usage()
        cost = event.get("costUsd")
        state = self.state
        state.usage += usage
        state.cost_usd = _add_cost(state.cost_usd, cost)
        if run is not None:
            run.usage += usage
            run.cost_usd = _add_cost(run.cost_usd, cost)


def _add_cost(total: float | None, cost: object) -> float | None:
    if total is None or not isinstance(cost, int | float):
        return None
    return total + float(cost)


def reduce(events: Iterable[Mapping[str, Any]]) -> SessionState:
    reducer = Reducer()
    for event in events:
        reducer.apply(event)
    return reducer.state
