"""Running `agentls` as a subprocess, the way a person runs it; the project folder and the
environment pointing a server at the fake Anthropic API, for the editor and ACP tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_server import FakeAnthropic

AGENTLS = [sys.executable, "-m", "agentls"]


class Cli:
    def __init__(self, state: Path, workspace: Path) -> None:
        self.state = state
        self.workspace = workspace
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "AGENTLS_", "OPENAI_"))
        }
        self.env["AGENTLS_STATE_DIR"] = str(state)
        self.env["AGENTLS_WARM"] = "0"  # each ask in its own process (tests/conftest.py)

    def run(self, *args: str, env: dict[str, str] | None = None, timeout: float = 60,
            input: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
        return subprocess.run(
            [*AGENTLS, *args], cwd=self.workspace, env={**self.env, **(env or {})},
            capture_output=True, text=True, timeout=timeout,
            input=input if input is not None else "",
        )  # fmt: skip

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*AGENTLS, *args], cwd=self.workspace, env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def session_files(self) -> list[Path]:
        return sorted((self.state / "sessions").glob("*.jsonl"))

    def events(self) -> list[dict[str, Any]]:
        (path,) = self.session_files()
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def user_settings(cli: Cli, data: dict[str, Any]) -> None:
    """DATA as the person's own settings file, where CLI's asks read it."""
    path = Path(cli.env["XDG_CONFIG_HOME"]) / "agentls" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    ws.mkdir()
    return ws


@pytest.fixture
def root(workspace: Path) -> Path:
    """The project folder, as the editor tests name it."""
    return workspace


@pytest.fixture
def model_env(fake: FakeAnthropic, isolated_state: Path) -> dict[str, str]:
    """What a started server needs to talk to the fake Anthropic API and keep its state in
    the test's folder."""
    return {
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "AGENTLS_STATE_DIR": str(isolated_state),
    }


@pytest.fixture
def cli(isolated_state: Path, workspace: Path) -> Cli:
    return Cli(isolated_state, workspace)
