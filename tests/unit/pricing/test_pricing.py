"""The model table: prices for known models, never a guess for unknown ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.contracts.errors import ConfigError
from agentls.contracts.usage import Usage
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.pricing import price_for
from agentls.providers.scripted import ScriptedProvider
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace


def test_known_models_and_aliases() -> None:
    sonnet = price_for("anthropic:claude-sonnet-4-5")
    assert sonnet is not None and sonnet.context_window == 200_000
    assert price_for("anthropic:claude-sonnet-4-5-20250929") == sonnet
    assert sonnet.cost(Usage(1_000_000, 1_000_000, 1_000_000, 1_000_000)) == pytest.approx(
        3 + 15 + 0.3 + 3.75
    )
    mini = price_for("openai:gpt-4o-mini")
    assert mini is not None and mini.cost(Usage(1_000_000, 0, 0, 0)) == pytest.approx(0.15)


def test_unknown_models_have_no_price() -> None:
    assert price_for("openai:llama3.2:3b") is None
    assert price_for("anthropic:claude-from-the-future") is None


def test_a_cost_budget_needs_a_known_price(tmp_path: Path) -> None:
    provider = ScriptedProvider([])
    provider_id = "openai:some-local-model"

    class Unpriced(ScriptedProvider):
        @property
        def model_id(self) -> str:
            return provider_id

    manager = ConversationManager(
        SessionStore(tmp_path / "state"), provider_factory=lambda settings: Unpriced([])
    )
    settings = load_settings({"model": "openai:some-local-model", "maxCostUsd": 1.0})
    with pytest.raises(ConfigError, match="maxCostUsd needs the price"):
        manager.open(LocalWorkspace(tmp_path), settings)
    assert provider.calls == []
