"""The reasoning setting worked out per model, as the model table marks each one."""

from __future__ import annotations

import pytest

from agentls.contracts.errors import ConfigError
from agentls.contracts.reasoning import Reasoning, ReasoningLevel
from agentls.conversation.reasoning import RunReasoning, resolve_reasoning


def resolve(
    level: ReasoningLevel | None, model: str, answer: int = 8192, tool_choice: str = "auto"
) -> RunReasoning:
    return resolve_reasoning(level, model, answer_tokens=answer, tool_choice=tool_choice)


def test_a_budget_model_gets_the_levels_budget_and_room_for_the_answer() -> None:
    levels: list[tuple[ReasoningLevel, int]] = [
        ("low", 4_000),
        ("medium", 10_000),
        ("high", 32_000),
    ]
    for level, budget in levels:
        got = resolve(level, "anthropic:claude-sonnet-4-5")
        assert got.request == Reasoning(
            level, "budget", budget_tokens=budget, interleaved_beta=True
        )
        assert got.max_output_tokens == 8192 + budget and got.chosen


def test_a_budget_is_cut_to_what_the_model_may_write_and_never_below_the_least() -> None:
    opus_41 = resolve("high", "anthropic:claude-opus-4-1")  # at most 32,000 tokens out
    assert opus_41.max_output_tokens == 32_000
    assert opus_41.request is not None and opus_41.request.budget_tokens == 32_000 - 8192
    crowded = resolve("low", "anthropic:claude-opus-4-1", answer=32_000)
    assert crowded.request is not None and crowded.request.budget_tokens == 1024
    assert crowded.max_output_tokens == 32_000 > 1024


def test_an_effort_model_on_manual_thinking_gets_both_and_haiku_no_beta() -> None:
    opus_45 = resolve("medium", "anthropic:claude-opus-4-5")
    assert opus_45.request is not None
    assert (opus_45.request.style, opus_45.request.effort) == ("budget", "medium")
    haiku = resolve("low", "anthropic:claude-haiku-4-5")
    assert haiku.request is not None and not haiku.request.interleaved_beta


def test_an_adaptive_model_gets_the_level_as_its_effort_and_no_budget() -> None:
    got = resolve("low", "anthropic:claude-opus-4-6")
    assert got.request == Reasoning("low", "adaptive", effort="low")
    assert got.max_output_tokens == 8192 + 4_000


def test_off_and_unset_send_nothing_to_anthropic() -> None:
    for level in (None, "off"):
        got = resolve(level, "anthropic:claude-sonnet-4-5")
        assert got.request is None and got.level == "off" and got.max_output_tokens == 8192
    assert resolve(None, "anthropic:claude-sonnet-4-5").describe() == "off (the model's default)"


def test_a_level_an_anthropic_model_cannot_take_is_refused_with_a_sentence() -> None:
    with pytest.raises(ConfigError, match="does not mark as a reasoning model"):
        resolve("low", "anthropic:claude-3-5-haiku-latest")
    with pytest.raises(ConfigError, match="does not know anthropic:claude-from-later"):
        resolve("low", "anthropic:claude-from-later")
    with pytest.raises(ConfigError, match='toolChoice "auto" or "none"'):
        resolve("low", "anthropic:claude-sonnet-4-5", tool_choice="required")
    assert resolve("off", "anthropic:claude-3-5-haiku-latest").request is None


def test_openai_reasoning_models_reason_by_default_and_take_effort_words() -> None:
    default = resolve(None, "openai:gpt-5")
    assert default.level == "medium" and not default.chosen
    assert default.request == Reasoning("medium", "effort", reasoning_model=True)  # no word sent
    off = resolve("off", "openai:gpt-5")
    assert off.request is not None and off.request.effort == "minimal"  # its lowest
    with pytest.raises(ConfigError, match="takes only low, medium, high"):
        resolve("off", "openai:o4-mini")
    with pytest.raises(ConfigError, match="openai:gpt-4o is not a reasoning model"):
        resolve("high", "openai:gpt-4o")


def test_a_server_the_table_does_not_know_gets_the_level_only_when_set() -> None:
    assert resolve(None, "openai:qwen3").request is None
    asked = resolve("off", "openai:qwen3")
    assert asked.request == Reasoning("off", "effort", effort="none")
    assert asked.max_output_tokens == 8192  # its limits are unknown: not raised
