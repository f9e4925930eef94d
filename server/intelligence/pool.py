"""What a session's intelligence takes from the hub: the servers its workspace shares.

A Protocol of its own, so that the three import in one direction only: the hub
(which builds a session's intelligence) imports the editor's routing and the
intelligence, the editor's routing imports the intelligence, and the
intelligence imports this (`tests/unit/intelligence/test_import_graph.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agentls.intelligence.config import LanguageServerConfig

if TYPE_CHECKING:  # pygls loads only when a session first needs a server
    from agentls.intelligence.connection import Connection

Key = tuple[Path, str, Path]  # workspace root, server name, project root


class ServerPool(Protocol):
    """The running servers, one per workspace root, server and project root."""

    @property
    def connections(self) -> Mapping[Key, Connection]: ...

    def connection(
        self, root: Path, name: str, config: LanguageServerConfig, executable: str, project: Path
    ) -> Connection:
        """The server for this key, made (not started) on first need."""
        ...
