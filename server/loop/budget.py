"""Run budgets: turns, tokens, cost and wall time, and what exceeding one means."""

from __future__ import annotations

from dataclasses import dataclass

from agentls.contracts.outcomes import BudgetOverrun
from agentls.contracts.usage import Usage


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    max_turns: int | None = 50
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    timeout_seconds: float | None = None

    def token_overrun(self, usage: Usage) -> BudgetOverrun | None:
        if self.max_tokens is not None and usage.total_tokens > self.max_tokens:
            return BudgetOverrun("tokens", self.max_tokens, usage.total_tokens)
        return None

    def cost_overrun(self, cost_usd: float | None) -> BudgetOverrun | None:
        if self.max_cost_usd is not None and cost_usd is not None and cost_usd > self.max_cost_usd:
            return BudgetOverrun("cost_usd", self.max_cost_usd, round(cost_usd, 6))
        return None

    def overrun(self, usage: Usage, cost_usd: float | None) -> BudgetOverrun | None:
        return self.token_overrun(usage) or self.cost_overrun(cost_usd)
