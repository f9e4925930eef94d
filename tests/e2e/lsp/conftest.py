"""Fixtures: the fake model server, a workspace, and an editor connected to `agentls serve`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio

from tests.e2e.lsp.editor import Editor, start_editor

EditorFactory = Callable[..., Any]


@pytest_asyncio.fixture
async def open_editor(root: Path, model_env: dict[str, str]) -> AsyncIterator[EditorFactory]:
    started: list[Editor] = []

    async def factory(**kwargs: Any) -> Editor:
        kwargs.setdefault("init_options", {"model": "anthropic:claude-sonnet-4-5"})
        editor = await start_editor(root, model_env, **kwargs)
        started.append(editor)
        return editor

    yield factory
    for editor in started:
        await editor.client.shutdown_session()
        await editor.client.stop()


@pytest_asyncio.fixture
async def editor(open_editor: EditorFactory) -> Editor:
    result: Editor = await open_editor()
    return result
