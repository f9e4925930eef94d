"""The `reasoning` setting worked out for one model: what each request sends, and how many
output tokens it may ask for once thinking takes its share.

Every face's runs, the doctor and a replay go through `resolve_reasoning`, so a level the
model cannot take is refused the same way everywhere, before anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from agentls.contracts.errors import ConfigError
from agentls.contracts.reasoning import REASONING_LEVELS, Reasoning, ReasoningLevel
from agentls.pricing import ModelTraits, traits_for

# What a level may spend thinking, on top of the answer's own `maxOutputTokens`: Anthropic's
# budget_tokens ("enabled" thinking), and the room an adaptive or effort-style model gets.
LEVEL_TOKENS: Final[dict[ReasoningLevel, int]] = {"off": 0, "low": 4_000, "medium": 10_000,
                                                   "high": 32_000}  # fmt: skip
MIN_BUDGET: Final = 1024  # the least budget_tokens the Anthropic API takes
# An OpenAI-compatible server the table does not know gets the level as these words
# (llama.cpp turns thinking off with "none").
UNKNOWN_EFFORTS: Final[dict[ReasoningLevel, str]] = {
    "off": "none", "low": "low", "medium": "medium", "high": "high",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class RunReasoning:
    """A run's reasoning: what its requests send and the output limit they ask for."""

    level: ReasoningLevel  # the level in use
    chosen: bool  # set by the person (else the model's own default)
    request: Reasoning | None  # None: nothing about reasoning is sent
    max_output_tokens: int  # the answer's room plus thinking's, within the model's limit

    def describe(self) -> str:
        """One line for the doctor and the faces: the level and where it came from."""
        where = "set" if self.chosen else "the model's default"
        if self.request is not None and self.request.budget_tokens:
            return f"{self.level} ({where}; thinking budget {self.request.budget_tokens:,} tokens)"
        return f"{self.level} ({where})"


def resolve_reasoning(
    setting: ReasoningLevel | None, model_id: str, *, answer_tokens: int, tool_choice: str = "auto"
) -> RunReasoning:
    """``setting`` (None: the model's default) for ``model_id``; ConfigError with a sentence
    when the model cannot take it."""
    provider = model_id.partition(":")[0]
    traits = traits_for(model_id)
    level: ReasoningLevel = setting if setting is not None else _default(traits)
    chosen = setting is not None
    if provider == "openai":
        return _effort_style(level, chosen, model_id, traits, answer_tokens)
    if level == "off":
        return RunReasoning(level, chosen, None, answer_tokens)
    if traits is None or traits.reasoning is None:
        known = "does not know" if traits is None else "does not mark as a reasoning model"
        raise ConfigError(
            f"reasoning {level!r}: the model table (agentls/data/models.json) {known} "
            f"{model_id}, so agentls cannot tell how it thinks; set reasoning to off, "
            "or use a model the table marks (docs/reasoning-and-images.md)"
        )
    if tool_choice not in ("auto", "none"):
        raise ConfigError(
            f"reasoning {level!r} with toolChoice {tool_choice!r}: a thinking model takes "
            'only toolChoice "auto" or "none"; set one of them, or reasoning to off'
        )
    return _thinking(level, chosen, traits, answer_tokens)


def _default(traits: ModelTraits | None) -> ReasoningLevel:
    return "off" if traits is None else traits.default_reasoning


def _thinking(
    level: ReasoningLevel, chosen: bool, traits: ModelTraits, answer_tokens: int
) -> RunReasoning:
    """Anthropic: adaptive thinking with the level as its effort, or enabled thinking with
    the level's budget; `max_tokens` raised to hold the answer and the thinking."""
    wanted = LEVEL_TOKENS[level]
    limit = answer_tokens + wanted
    if traits.max_output is not None:
        limit = min(limit, traits.max_output)
    effort = level if traits.effort else None
    if traits.reasoning == "adaptive":
        request = Reasoning(level, "adaptive", effort=effort)
        return RunReasoning(level, chosen, request, limit)
    # The budget must be at least MIN_BUDGET and below max_tokens; a model whose limit
    # leaves the answer less room than asked gives the thinking what is left.
    budget = max(MIN_BUDGET, min(wanted, limit - answer_tokens))
    limit = max(limit, budget + 1)
    request = Reasoning(
        level, "budget", effort=effort, budget_tokens=budget,
        interleaved_beta=traits.interleaved_beta,
    )  # fmt: skip
    return RunReasoning(level, chosen, request, limit)


def _effort_style(
    level: ReasoningLevel,
    chosen: bool,
    model_id: str,
    traits: ModelTraits | None,
    answer_tokens: int,
) -> RunReasoning:
    """OpenAI-compatible: `reasoning_effort`, sent only when the person chose a level (an
    unsupported value is a 400); a model the table marks gets room to reason at any level."""
    if traits is None:  # a server the table does not know (Ollama, llama.cpp, vLLM...)
        if not chosen:
            return RunReasoning(level, chosen, None, answer_tokens)
        request = Reasoning(level, "effort", effort=UNKNOWN_EFFORTS[level])
        return RunReasoning(level, chosen, request, answer_tokens)
    if traits.reasoning != "effort":
        if level == "off":
            return RunReasoning(level, chosen, None, answer_tokens)
        raise ConfigError(
            f"reasoning {level!r}: {model_id} is not a reasoning model (the model table, "
            "agentls/data/models.json, does not mark it as one); set reasoning to off"
        )
    word = traits.efforts.get(level)
    if word is None:
        takes = ", ".join(lvl for lvl in REASONING_LEVELS if lvl in traits.efforts)
        raise ConfigError(f"reasoning {level!r}: {model_id} takes only {takes}")
    limit = answer_tokens + LEVEL_TOKENS[level]
    if traits.max_output is not None:
        limit = min(limit, traits.max_output)
    request = Reasoning(level, "effort", effort=word if chosen else None, reasoning_model=True)
    return RunReasoning(level, chosen, request, max(limit, 1))
