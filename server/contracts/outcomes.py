"""How a run ends: structured terminal reasons, never bare strings."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from agentls.contracts.model_io import StopReason
from agentls.contracts.usage import Usage
from agentls.contracts.values import value


class TerminalReason(StrEnum):
    COMPLETED = "completed"
    MAX_TURNS = "max_turns"
    ABORTED = "aborted"
    TIMEOUT = "timeout"
    PERMISSION_DENIED = "permission_denied"
    BUDGET_EXCEEDED = "budget_exceeded"
    FATAL_TOOL_ERROR = "fatal_tool_error"
    MODEL_ERROR = "model_error"


EXIT_CODES: dict[TerminalReason, int] = {
    TerminalReason.COMPLETED: 0,
    TerminalReason.MAX_TURNS: 3,
    TerminalReason.BUDGET_EXCEEDED: 4,
    TerminalReason.TIMEOUT: 5,
    TerminalReason.PERMISSION_DENIED: 6,
    TerminalReason.FATAL_TOOL_ERROR: 7,
    TerminalReason.MODEL_ERROR: 8,
    TerminalReason.ABORTED: 130,
}
EXIT_USAGE = 2


BudgetLimit = Literal["tokens", "cost_usd", "turns", "wall_seconds"]


@value
class BudgetOverrun:
    """Which limit was hit and by how much (``used - limit``)."""

    limit_name: BudgetLimit
    limit: float
    used: float

    @property
    def over_by(self) -> float:
        return self.used - self.limit

    def to_dict(self) -> dict[str, Any]:
        return {
            "limit": self.limit_name,
            "max": self.limit,
            "used": self.used,
            "overBy": round(self.over_by, 6),
        }


@value
class RunResult:
    reason: TerminalReason
    text: str
    usage: Usage
    cost_usd: float | None  # None when the model's price is unknown
    turns: int
    detail: str = ""  # a sentence for a person: why the run stopped
    budget: BudgetOverrun | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.reason]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "terminalReason": self.reason.value,
            "text": self.text,
            "turns": self.turns,
            "usage": {
                "inputTokens": self.usage.input_tokens,
                "outputTokens": self.usage.output_tokens,
                "cacheReadTokens": self.usage.cache_read_tokens,
                "cacheWriteTokens": self.usage.cache_write_tokens,
                "costUsd": None if self.cost_usd is None else round(self.cost_usd, 6),
            },
            "detail": self.detail,
        }
        if self.budget is not None:
            out["budget"] = self.budget.to_dict()
        return out


def completion_note(stop_reason: StopReason) -> str:
    """The detail of a completed run whose answer the model ended early; faces match it."""
    if stop_reason == "max_tokens":
        return "the answer was cut off at the model's output limit"
    if stop_reason == "refusal":
        return "the model declined to answer"
    return ""
