"""Fixtures for the unit tests of tools and the workspace: a LocalWorkspace on a temporary root."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace
from tests.processes import process_alive


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace, holding a file the agent must never reach."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("top secret\n")
    return folder


@pytest.fixture
def ws(root: Path) -> LocalWorkspace:
    return LocalWorkspace(root)


@pytest.fixture
def ctx(ws: LocalWorkspace) -> ToolContext:
    return ToolContext(workspace=ws)


@pytest.fixture
def alive() -> object:
    return process_alive


@pytest.fixture
def reap_pids() -> Iterator[list[int]]:
    """Pids a test started; killed afterwards so a failing test leaves nothing behind."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if process_alive(pid):
            os.kill(pid, signal.SIGKILL)
