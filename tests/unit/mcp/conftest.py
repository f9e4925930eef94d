"""A hub that collects what it tells the person, and helpers to watch server processes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agentls.conversation.settings import load_settings
from agentls.mcp.config import McpServerConfig
from agentls.mcp.hub import McpHub


class Told(list[str]):
    def __call__(self, note: str) -> None:
        self.append(note)


@pytest.fixture
def told() -> Told:
    return Told()


@pytest_asyncio.fixture
async def hub(told: Told) -> AsyncIterator[McpHub]:
    hub = McpHub(notify=told)
    yield hub
    await hub.aclose()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """Each start of the fake server appends a line here."""
    return tmp_path / "starts.txt"


def servers(raw: dict[str, Any]) -> dict[str, McpServerConfig]:
    return load_settings({"mcpServers": raw}).mcp_servers


def starts(marker: Path) -> int:
    return len(marker.read_text().splitlines()) if marker.exists() else 0
