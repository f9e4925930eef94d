"""The context settings: names, defaults, the window per model, and bad values refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.context.policy import ASSUMED_WINDOW, ContextPolicy
from agentls.contracts.errors import ConfigError
from agentls.contracts.window import ServerWindow
from agentls.conversation.settings import Settings, load_settings
from agentls.providers.scripted import ScriptedProvider

from .helpers import open_conversation


def test_defaults_and_the_window_from_the_model_table() -> None:
    policy = Settings().context_policy("anthropic:claude-sonnet-4-5")
    assert policy == ContextPolicy(window=200_000, max_output_tokens=8192)
    assert (policy.threshold, policy.verbatim_turns, policy.compaction) == (0.8, 4, True)
    assert policy.compact_at == 160_000
    assert policy.hard_limit == 200_000 - 8192
    assert policy.old_tool_results_budget == 40_000


def test_a_model_the_table_does_not_know_gets_a_large_window_unless_told() -> None:
    unknown = Settings().context_policy("openai:qwen2.5-coder:7b")
    assert unknown.window == ASSUMED_WINDOW == 200_000
    assert unknown.window_source.startswith("assumed")
    server = ServerWindow(8192, "llama.cpp /props at http://127.0.0.1:8080/v1")
    said = Settings().context_policy("openai:qwen2.5-coder:7b", server)
    assert (said.window, said.window_source) == (8192, server.source)
    assert Settings().context_policy("anthropic:claude-sonnet-4-5", server).window == 200_000
    told = load_settings({"contextWindow": 32_768})
    assert told.context_policy("openai:qwen2.5-coder:7b").window == 32_768
    assert told.context_policy("anthropic:claude-sonnet-4-5").window == 32_768


def test_camel_case_settings_reach_the_policy_and_the_log() -> None:
    settings = load_settings(
        {"compactionThreshold": 0.6, "verbatimTurns": 2, "toolResultBudget": 5000,
         "compaction": False, "contextWindow": 16_000, "maxOutputTokens": 1000}
    )  # fmt: skip
    policy = settings.context_policy("scripted:x")
    assert policy == ContextPolicy(16_000, 1000, 0.6, 2, 5000, False)
    assert policy.compact_at == 9600 and policy.hard_limit == 15_000
    logged = settings.to_log()
    assert logged["compactionThreshold"] == 0.6 and logged["compaction"] is False


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("compactionThreshold", 1.5),
        ("compactionThreshold", 0.1),
        ("compactionThreshold", "most"),
        ("verbatimTurns", 0),
        ("verbatimTurns", 2.5),
        ("toolResultBudget", -1),
        ("contextWindow", 100),
        ("contextWindow", "big"),
        ("compaction", "maybe"),
    ],
)
def test_bad_values_are_a_config_error_naming_the_setting(key: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=key):
        load_settings({key: value})


async def test_new_settings_reach_the_projector_of_a_live_session(tmp_path: Path) -> None:
    conv, manager = open_conversation(
        tmp_path, ScriptedProvider([]), {"model": "scripted:t", "verbatimTurns": 3}
    )
    assert conv.projector.policy.verbatim_turns == 3
    assert conv.projector.policy.window == 200_000  # scripted models: the table's default
    conv.apply_settings(load_settings({"model": "scripted:t", "compaction": False}))
    assert conv.projector.policy.compaction is False
    manager.close()
