"""Fixtures for the editor tests: the fake model server, a workspace, scripted and real editors.

The scripted editors (pytest-lsp clients shaped like Helix, Kate or Sublime)
reuse `tests.e2e.lsp.editor`; the real editors (Neovim, Emacs) run headless
as subprocesses against `agentls serve` (see real_editor.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.editors.clients import start_client
from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def model_env(fake: FakeAnthropic, isolated_state: Path) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "AGENTLS_STATE_DIR": str(isolated_state),
    }


@pytest_asyncio.fixture
async def open_client(root: Path, model_env: dict[str, str]) -> AsyncIterator[Any]:
    started: list[Editor] = []

    async def factory(**kwargs: Any) -> Editor:
        editor = await start_client(root, model_env, **kwargs)
        started.append(editor)
        return editor

    yield factory
    for editor in started:
        await editor.client.shutdown_session()
        await editor.client.stop()
