"""Token usage as the providers report it."""

from __future__ import annotations

from typing import Any

from agentls.contracts.values import value


@value
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    # Of ``output_tokens``, those the model spent thinking: already counted (and priced)
    # there, so never added to the totals again.
    thinking_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.thinking_tokens + other.thinking_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "thinking_tokens": self.thinking_tokens,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        return cls(
            int(data.get("input_tokens", 0)),
            int(data.get("output_tokens", 0)),
            int(data.get("cache_read_tokens", 0)),
            int(data.get("cache_write_tokens", 0)),
            int(data.get("thinking_tokens", 0)),
        )


def add_cost(total: float | None, cost: float | None) -> float | None:
    """A sum of costs in USD: unknown (None) once any part is."""
    if total is None or cost is None:
        return None
    return total + cost


def has_real_cost(model_id: str) -> bool:
    """A scripted model has a nominal price (for budget tests and demos), not a cost."""
    return not model_id.startswith("scripted:")
