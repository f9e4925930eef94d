"""Fixtures for provider tests: a fake Anthropic server (`fake`, from tests/conftest.py) or
a fake OpenAI server (`openai_fake`), and a provider bound to each."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentls.providers.anthropic import AnthropicProvider
from agentls.providers.openai_compat import OpenAIProvider
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.openai_server import FakeOpenAI


@pytest.fixture
def make_provider(fake: FakeAnthropic) -> Callable[..., AnthropicProvider]:
    def build(**overrides: object) -> AnthropicProvider:
        options: dict[str, object] = {"api_key": "test-key", "base_url": fake.base_url}
        options.update(overrides)
        return AnthropicProvider("claude-test", **options)  # type: ignore[arg-type]

    return build


@pytest.fixture
def openai_fake() -> Iterator[FakeOpenAI]:
    """A fake OpenAI chat-completions API on a local port; a test adds the replies it needs."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def make_openai_provider(openai_fake: FakeOpenAI) -> Callable[..., OpenAIProvider]:
    def build(**overrides: Any) -> OpenAIProvider:
        options: dict[str, Any] = {"api_key": "test-key", "base_url": openai_fake.base_url}
        return OpenAIProvider("gpt-test", **(options | overrides))

    return build
