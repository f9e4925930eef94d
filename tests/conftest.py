"""Shared fixtures: an isolated state dir for every test, and a fake Anthropic API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropic


@pytest.fixture(autouse=True)
def isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    monkeypatch.setenv("AGENTLS_STATE_DIR", str(state))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no personal settings
    # Not this machine's managed settings, nor its collector.
    monkeypatch.setenv("AGENTLS_MANAGED_SETTINGS", str(tmp_path / "no-managed-settings.json"))
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
                 "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_RESOURCE_ATTRIBUTES"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    return state


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    """A fake Anthropic API on a local port; a test adds the replies it needs."""
    with FakeAnthropic() as server:
        yield server
