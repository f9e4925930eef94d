"""The model table: context windows, prices and what each model takes, from
data/models.json.

Scripted models are priced like a mid-range model so budget paths can be
exercised in demos and tests; a model the table does not know has an unknown
price, reported as such and never guessed, and takes neither a reasoning level
nor images (`traits_for` says None).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any, cast, get_args

from agentls.contracts.reasoning import REASONING_LEVELS, ReasoningLevel, ReasoningStyle
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


@dataclass(frozen=True, slots=True)
class ModelTraits:
    """What a model takes, as the table marks it."""

    max_output: int | None  # the most output tokens a request may ask for; None: unknown
    reasoning: ReasoningStyle | None  # None: not a reasoning model
    effort: bool  # an Anthropic model that also takes `output_config.effort`
    interleaved_beta: bool  # thinking between tool calls needs the beta header
    efforts: dict[ReasoningLevel, str]  # "effort" style: the word sent for each level
    default_reasoning: ReasoningLevel  # the level it works at when none is set
    images: bool


@cache
def _table() -> dict[str, Any]:
    text = resources.files("agentls").joinpath("data/models.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@lru_cache(maxsize=64)
def price_for(model_id: str) -> ModelPrice | None:
    """``model_id`` is ``provider:name``; None when the price is unknown. Looked up once per
    model (the table is read once; a ModelPrice is frozen), since each run asks."""
    entry = _entry(model_id)
    if entry is None:
        return None
    return ModelPrice(
        context_window=int(entry["contextWindow"]),
        input=float(entry["input"]),
        output=float(entry["output"]),
        cache_read=float(entry["cacheRead"]),
        cache_write=float(entry["cacheWrite"]),
    )


@lru_cache(maxsize=64)
def traits_for(model_id: str) -> ModelTraits | None:
    """What ``model_id`` takes; None for a model the table does not know."""
    entry = _entry(model_id)
    if entry is None:
        return None
    style = entry.get("reasoning")
    if style is not None and style not in get_args(ReasoningStyle):
        raise ValueError(f"models.json: {model_id}: unknown reasoning style {style!r}")
    given = entry.get("efforts", {})
    efforts = {level: str(word) for level, word in given.items() if level in REASONING_LEVELS}
    default = entry.get("defaultReasoning", "off")
    if default not in REASONING_LEVELS:
        raise ValueError(f"models.json: {model_id}: unknown defaultReasoning {default!r}")
    max_output = entry.get("maxOutput")
    return ModelTraits(
        max_output=None if max_output is None else int(max_output),
        reasoning=cast(ReasoningStyle | None, style),
        effort=bool(entry.get("effort", False)),
        interleaved_beta=bool(entry.get("interleavedBeta", False)),
        efforts=cast(dict[ReasoningLevel, str], efforts),
        default_reasoning=cast(ReasoningLevel, default),
        images=bool(entry.get("images", False)),
    )


def _entry(model_id: str) -> dict[str, Any] | None:
    table = _table()
    key = table["aliases"].get(model_id, model_id)
    entry: dict[str, Any] | None = table["models"].get(key)
    if entry is None:
        provider = key.split(":", 1)[0]
        entry = table["models"].get(f"{provider}:*")
    return entry
