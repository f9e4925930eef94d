"""A server that answers its first pull late (loading its project) still gets pulled:
slow is not unsupported."""

from __future__ import annotations

import sys
from pathlib import Path

from agentls.intelligence.config import LanguageServerConfig
from agentls.intelligence.connection import Connection

FAKE_SERVERS = Path(__file__).parent / "fake_servers.py"


async def test_a_late_first_pull_does_not_turn_pulls_off(tmp_path: Path) -> None:
    config = LanguageServerConfig(
        command=sys.executable, args=[str(FAKE_SERVERS), "slowpull"], file_patterns=["*.x"]
    )
    connection = Connection("slow", config, sys.executable, tmp_path)
    uri = (tmp_path / "a.x").as_uri()
    try:
        await connection.sync(uri, "x", "text\n")
        # The first probe gives up before the answer; nothing is pushed either.
        assert await connection.diagnostics(uri, 1.2) == ([], False)
        items, settled = await connection.diagnostics(uri, 30)
        assert settled and [i.message for i in items] == ["slow but sure"]
    finally:
        await connection.close()
