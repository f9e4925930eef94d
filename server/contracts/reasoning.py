"""How hard a model is asked to think: the person's level and what its API is sent for it."""

from __future__ import annotations

from typing import Final, Literal, get_args

from agentls.contracts.values import value

ReasoningLevel = Literal["off", "low", "medium", "high"]
REASONING_LEVELS: Final[tuple[ReasoningLevel, ...]] = get_args(ReasoningLevel)

# How a model's API takes a level (the model table marks each model):
#   adaptive  Anthropic's adaptive thinking, the level as `output_config.effort`
#   budget    Anthropic's enabled thinking with `budget_tokens` per level
#   effort    OpenAI-compatible `reasoning_effort`
ReasoningStyle = Literal["adaptive", "budget", "effort"]


@value
class Reasoning:
    """What one model request asks of the model's thinking, worked out once per run from the
    `reasoning` setting and the model table; a provider only translates it."""

    level: ReasoningLevel
    style: ReasoningStyle
    # The word sent as the effort (Anthropic's `output_config.effort`, OpenAI's
    # `reasoning_effort`); None: no effort is sent (the model's own default).
    effort: str | None = None
    budget_tokens: int = 0  # "budget": what the level may spend thinking
    interleaved_beta: bool = False  # thinking between tool calls needs the beta header
    # The table marks the model as one that reasons (OpenAI's take `max_completion_tokens`).
    reasoning_model: bool = False


def parse_level(text: str) -> ReasoningLevel:
    """``text`` as a level; ValueError naming the levels otherwise."""
    for level in REASONING_LEVELS:
        if text == level:
            return level
    raise ValueError(f"unknown reasoning level {text!r}; use one of: {', '.join(REASONING_LEVELS)}")
