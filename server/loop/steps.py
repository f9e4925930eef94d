"""The loop's explicit step type: after each turn the run goes on or ends."""

from __future__ import annotations

from dataclasses import dataclass

from agentls.contracts.model_io import StopReason
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


def completion_note(stop_reason: StopReason) -> str:
    if stop_reason == "max_tokens":
        return "the answer was cut off at the model's output limit"
    if stop_reason == "refusal":
        return "the model declined to answer"
    return ""


def overrun_note(overrun: BudgetOverrun) -> str:
    return (
        f"the {overrun.limit_name} budget of {overrun.limit:g} was exceeded "
        f"({overrun.used:g} used, {overrun.over_by:g} over)"
    )
