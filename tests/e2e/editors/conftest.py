"""Fixtures for the editor tests: the fake model server, a workspace, scripted and real editors.

The scripted editors (pytest-lsp clients shaped like Helix, Kate or Sublime)
reuse `tests.e2e.lsp.editor`; the real editors (Neovim, Emacs) run headless
as subprocesses against `agentls serve` (see real_editor.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from tests.e2e.editors.clients import start_client
from tests.e2e.lsp.editor import Editor


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
