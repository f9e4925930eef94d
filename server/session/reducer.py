"""Folding session events into SessionState.

The live ConversationManager and resume both go through ``Reducer.apply``, so a
resumed session is rebuilt by exactly the code that built it. Messages come only
from the events that record them verbatim (user_message, model_output,
tool_results); nothing is inferred from summaries. A compaction summary
(context_summary) is kept aside, for the context layer to resume from, and never
becomes part of the history.

A rewind (`rewound` with `conversation`) takes asks back: the history is cut where the
first of them began (asks taken back are always the last ones still in it), they are
marked `rewound`, and the summary kept aside goes back to the newest one that stands
only for what is left; so do the model's checklist and the plan agreed in plan mode
(those the asks taken back made are dropped).
"""

from __future__ import annotations

from collections.abc import Iterable

from agentls.contracts.plans import Plan
from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.records import plan_of
from agentls.session.state import ContextSummary, RunRecord, SessionState


class Reducer:
    def __init__(self, state: SessionState | None = None) -> None:
        self.state = state if state is not None else SessionState()
        self._runs: dict[str, RunRecord] = {r.run_id: r for r in self.state.runs}
        # Every summary still standing for part of the history, oldest first.
        summary = self.state.context_summary
        self._summaries: list[ContextSummary] = [] if summary is None else [summary]
        # Each checklist and agreed plan with the run that made it, oldest first: a rewind
        # goes back to the newest one an ask still standing made.
        self._plans: list[tuple[str | None, Plan]] = []
        if self.state.plan is not None:
            self._plans.append((None, self.state.plan))
        self._agreed: list[tuple[str | None, str]] = []
        if self.state.agreed_plan is not None:
            self._agreed.append((None, self.state.agreed_plan))

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
            state.forked_from = event.forked_from
        elif isinstance(event, ev.RunStarted):
            run_id = str(event.run)
            record = RunRecord(
                run_id,
                event.prompt,
                event.ts,
                mode=event.mode,
                number=len(state.runs) + 1,
                first_message=len(state.messages),
                seq=event.seq,
                last_mode=event.mode,
            )
            self._runs[run_id] = record
            state.runs.append(record)
        elif isinstance(event, ev.ContextSummary):
            summary = ContextSummary(event.seq, event.text, event.pinned, event.up_to_message)
            self._summaries.append(summary)
            state.context_summary = summary
        elif isinstance(event, ev.Rewound) and event.conversation:
            self._rewind(event.runs)
        elif isinstance(event, ev.ModeChanged):
            state.mode = event.mode
            if run is not None:
                run.last_mode = event.mode
        elif isinstance(event, ev.PlanUpdated):
            state.plan = plan_of(event.plan, event.explanation)
            self._plans.append((event.run, state.plan))
        elif isinstance(event, ev.PlanReviewed):
            if event.person and event.choice != "keep-planning":
                state.agreed_plan = event.plan
                self._agreed.append((event.run, event.plan))
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
            result = event.result
            if run.last_mode == "plan" and result.terminal_reason == "completed" and result.text:
                state.agreed_plan = result.text  # a plan-mode run's answer is its plan
                self._agreed.append((run.run_id, result.text))
        elif isinstance(event, ev.RunClosed) and run is not None:
            run.result = {"terminalReason": event.reason, "detail": event.detail, "closed": True}

    def _rewind(self, run_ids: list[str]) -> None:
        state = self.state
        taken = [r for r in map(self._runs.get, run_ids) if r is not None and not r.rewound]
        if not taken:
            return
        cut = min(run.first_message for run in taken)
        for run in taken:
            run.rewound = True
        del state.messages[cut:]
        self._summaries = [s for s in self._summaries if s.up_to <= cut]
        state.context_summary = self._summaries[-1] if self._summaries else None
        gone = {run.run_id for run in taken}
        self._plans = [(r, plan) for r, plan in self._plans if r not in gone]
        state.plan = self._plans[-1][1] if self._plans else None
        self._agreed = [(r, text) for r, text in self._agreed if r not in gone]
        state.agreed_plan = self._agreed[-1][1] if self._agreed else None

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
