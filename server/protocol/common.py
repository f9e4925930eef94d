"""Shapes several messages share: positions, a run's usage and budget, its outcome."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field

from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason
from agentls.contracts.usage import Usage as CoreUsage
from agentls.protocol.wire import Omittable, Params, WireModel


class Position(Params):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Range(Params):
    start: Position
    end: Position


class Usage(WireModel):
    """A run's tokens so far, and their price."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None = Field(
        description="USD; null when the price is unknown, and for a scripted model"
    )

    @classmethod
    def of(cls, total: CoreUsage, cost_usd: float | None) -> Usage:
        return cls(
            input_tokens=total.input_tokens,
            output_tokens=total.output_tokens,
            cache_read_tokens=total.cache_read_tokens,
            cache_write_tokens=total.cache_write_tokens,
            cost_usd=None if cost_usd is None else round(cost_usd, 6),
        )


class Budget(WireModel):
    """The limit a run hit, and by how much."""

    limit: Literal["tokens", "cost_usd", "turns", "wall_seconds"]
    max: int | float
    used: int | float
    over_by: int | float

    @classmethod
    def of(cls, overrun: BudgetOverrun) -> Budget:
        return cls(
            limit=overrun.limit_name,
            max=overrun.limit,
            used=overrun.used,
            over_by=round(overrun.over_by, 6),
        )


class RunOutcome(WireModel):
    """How a run ended: a waited `agentls.ask`'s result and the `run_finished` event."""

    session_id: str
    run_id: str
    terminal_reason: TerminalReason
    text: str
    turns: int
    usage: Usage
    detail: str = Field(description="why the run stopped, for a person")
    budget: Omittable[Budget] = Field(default=None, description="when a budget stopped it")

    @classmethod
    def of(
        cls, session_id: str, run_id: str, result: RunResult, *, show_cost: bool, **more: Any
    ) -> Self:
        """The run's outcome; a scripted model's nominal price is not shown."""
        return cls(
            session_id=session_id,
            run_id=run_id,
            terminal_reason=result.reason,
            text=result.text,
            turns=result.turns,
            usage=Usage.of(result.usage, result.cost_usd if show_cost else None),
            detail=result.detail,
            budget=None if result.budget is None else Budget.of(result.budget),
            **more,
        )
