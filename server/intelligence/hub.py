"""The language server processes: by workspace, server and project, shared by the
workspace's sessions and stopped with the last of them.

A process registry only (`agentls.supervision.Registry`): it knows nothing of
who asks the servers what. A server whose settings changed (its config, or how
the workspace's servers are sandboxed) is retired and a new one made on next need.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.intelligence.config import LanguageServerConfig
from agentls.supervision import Registry
from agentls.workspace.sandbox import SandboxSettings

if TYPE_CHECKING:  # pygls loads only when a session first needs a server
    from agentls.intelligence.connection import Connection

Key = tuple[Path, str, Path]  # workspace root, server name, project root
# What the editors' status line shows of a server's state.
_SHOWN = {"starting": "running", "running": "running", "stopped": "stopped", "failed": "failed"}


class ServerHub:
    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._servers: Registry[Path, tuple[str, Path], Connection] = Registry(on_change)
        self._sandboxes: dict[Path, SandboxSettings] = {}  # how each workspace's servers start

    @property
    def on_change(self) -> Callable[[], None] | None:
        return self._servers.on_change

    @on_change.setter
    def on_change(self, listener: Callable[[], None] | None) -> None:
        self._servers.on_change = listener

    def join(self, root: Path, sandbox: SandboxSettings | None = None) -> None:
        """A session of ``root`` uses its servers (nothing starts yet)."""
        self._servers.join(root)
        if sandbox is not None:
            self._sandboxes[root] = sandbox.for_servers()

    def leave(self, root: Path) -> None:
        """A session closed; the last one of a workspace stops its servers."""
        if self._servers.leave(root):
            self._sandboxes.pop(root, None)

    @property
    def connections(self) -> dict[Key, Connection]:
        """The servers made so far (running or not), by their key."""
        return {
            (root, name, project): connection
            for (root, (name, project)), connection in self._servers.children().items()
        }  # fmt: skip

    def connection(
        self, root: Path, name: str, config: LanguageServerConfig, executable: str, project: Path
    ) -> Connection:
        """The server for this key, made (not started) on first need."""
        sandbox = self._sandboxes.get(root, SandboxSettings())

        def make() -> Connection:
            from agentls.intelligence.connection import Connection

            return Connection(name, config, executable, project, workspace=root, sandbox=sandbox)

        return self._servers.child(root, (name, project), (config, sandbox), make)

    def status(self) -> list[dict[str, Any]]:
        """Each server agentls runs, as the editors' status line shows it."""
        shown = []
        for connection in self._servers.children().values():
            status = connection.lifecycle.status()
            shown.append({
                "name": connection.name, "root": str(connection.root),
                "state": _SHOWN[status.state], "detail": status.failure or "",
            })  # fmt: skip
        return shown

    async def retired(self) -> None:
        """Wait until the servers stopped so far have exited."""
        await self._servers.retired()

    async def aclose(self) -> None:
        """Stop every server and wait for it (the end of a process)."""
        await self._servers.aclose()
