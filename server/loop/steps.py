"""The loop's explicit step type: after each turn the run goes on or ends."""

from __future__ import annotations

from dataclasses import dataclass

from agentls.contracts.outcomes import BudgetOverrun, TerminalReason
from agentls.contracts.tooling import ToolIntent


@dataclass(frozen=True, slots=True)
class RunAgain:
    """The model asked for tools: run them, then infer again."""

    intents: tuple[ToolIntent, ...]


@dataclass(frozen=True, slots=True)
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
