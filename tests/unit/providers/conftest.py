"""Fixtures for provider tests: a fake Anthropic server and a provider bound to it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The repo root holds the `tests` package (the fake server); pytest's rootdir-less
# import mode does not put it on sys.path by itself.
ROOT = str(Path(__file__).resolve().parents[3])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from agentls.providers.anthropic import AnthropicProvider  # noqa: E402

from tests.fakes.anthropic_server import FakeAnthropic  # noqa: E402


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def make_provider(fake: FakeAnthropic) -> Callable[..., AnthropicProvider]:
    def build(**overrides: object) -> AnthropicProvider:
        options: dict[str, object] = {"api_key": "test-key", "base_url": fake.base_url}
        options.update(overrides)
        return AnthropicProvider("claude-test", **options)  # type: ignore[arg-type]

    return build
