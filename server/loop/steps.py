"""The loop's explicit step type: after each turn the run goes on or ends."""

from __future__ import annotations

from agentls.contracts.outcomes import BudgetOverrun, TerminalReason
from agentls.contracts.tooling import ToolIntent
from agentls.contracts.values import value


@value
class RunAgain:
    """The model asked for tools: run them, then infer again."""

    intents: tuple[ToolIntent, ...]


@value
class Finish:
    reason: TerminalReason
    detail: str = ""
    budget: BudgetOverrun | None = None


Step = RunAgain | Finish


def overrun_note(overrun: BudgetOverrun) -> str:
    return (
        f"the {overrun.limit_name} budget of {overrun.limit:g} was exceeded "
        f"({overrun.used:g} used, {overrun.over_by:g} over)"
    )
