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
