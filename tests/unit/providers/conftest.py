"""Fixtures for provider tests: a fake Anthropic server and a provider bound to it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentls.providers.anthropic import AnthropicProvider
from tests.fakes.anthropic_server import FakeAnthropic


@pytest.fixture
def make_provider(fake: FakeAnthropic) -> Callable[..., AnthropicProvider]:
    def build(**overrides: object) -> AnthropicProvider:
        options: dict[str, object] = {"api_key": "test-key", "base_url": fake.base_url}
        options.update(overrides)
        return AnthropicProvider("claude-test", **options)  # type: ignore[arg-type]

    return build
