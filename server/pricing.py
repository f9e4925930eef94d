"""The model table: context windows and prices, from data/models.json.

Scripted models are priced like a mid-range model so budget paths can be
exercised in demos and tests; a model the table does not know has an unknown
price, reported as such and never guessed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from agentls.contracts.usage import Usage

_PER_TOKEN = 1_000_000.0


@dataclass(frozen=True, slots=True)
class ModelPrice:
    context_window: int
    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * self.cache_read
            + usage.cache_write_tokens * self.cache_write
        ) / _PER_TOKEN


@cache
def _table() -> dict[str, Any]:
    text = resources.files("agentls").joinpath("data/models.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@lru_cache(maxsize=64)
def price_for(model_id: str) -> ModelPrice | None:
    """``model_id`` is ``provider:name``; None when the price is unknown. Looked up once per
    model (the table is read once; a ModelPrice is frozen), since each run asks."""
    table = _table()
    key = table["aliases"].get(model_id, model_id)
    entry = table["models"].get(key)
    if entry is None:
        provider = key.split(":", 1)[0]
        entry = table["models"].get(f"{provider}:*")
    if entry is None:
        return None
    return ModelPrice(
        context_window=int(entry["contextWindow"]),
        input=float(entry["input"]),
        output=float(entry["output"]),
        cache_read=float(entry["cacheRead"]),
        cache_write=float(entry["cacheWrite"]),
    )
