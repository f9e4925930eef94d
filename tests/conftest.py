"""Shared fixtures: an isolated state dir for every test, and a fake Anthropic API; the
suite's asks run in their own processes."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropic
from tests.processes import warm_processes


def pytest_configure(config: pytest.Config) -> None:
    # `agentls ask` is served by a warm process unless AGENTLS_WARM=0, and that process
    # would outlive the test whose ask started it: every ask of the suite runs cold, but
    # in the tests of the warm process itself (tests/unit/cli/test_warm.py).
    os.environ["AGENTLS_WARM"] = "0"


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


@pytest.fixture(autouse=True)
def no_warm_process_left(isolated_state: Path | None) -> Iterator[None]:
    """A test whose ask started a warm process (an environment made without the suite's
    AGENTLS_WARM=0) fails, and the process is ended rather than left to serve for 15 min.
    (Modules whose runs each have a state folder of their own turn isolated_state off.)"""
    yield
    if isolated_state is None or not isolated_state.is_dir():
        return
    started = sorted(p.name for p in isolated_state.glob("warm-*"))
    if started:
        for pid in warm_processes(isolated_state):
            os.kill(pid, signal.SIGKILL)
        pytest.fail(f"an ask started a warm process ({', '.join(started)}): give the asks the "
                    "suite's AGENTLS_WARM=0", pytrace=False)  # fmt: skip


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    """A fake Anthropic API on a local port; a test adds the replies it needs."""
    with FakeAnthropic() as server:
        yield server
