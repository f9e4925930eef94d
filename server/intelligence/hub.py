"""Language servers by workspace: shared by the sessions of a workspace, shut down with the last."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.intelligence.editor import METHODS, EditorIntelligence, EditorLanguage
from agentls.intelligence.pool import Key
from agentls.intelligence.service import Source, WorkspaceIntelligence
from agentls.workspace.interface import Workspace
from agentls.workspace.sandbox import SandboxSettings

if TYPE_CHECKING:  # pygls loads only when a session first needs a server
    from agentls.intelligence.connection import Connection

log = logging.getLogger(__name__)
# Told the language servers' state whenever it changes (the editors' status).
StatusListener = Callable[[dict[str, Any]], None]


class LanguageHub:
    """The servers of every workspace (a `ServerPool` for each session's intelligence)."""

    def __init__(self) -> None:
        self.connections: dict[Key, Connection] = {}
        self._users: dict[Path, int] = {}
        self._closing: set[asyncio.Task[None]] = set()
        # The editor's own intelligence, where the face has one (the language server).
        self.editor: EditorLanguage | None = None
        self.on_change: StatusListener | None = None
        self.sandboxes: dict[Path, SandboxSettings] = {}  # how each workspace's servers start

    def attach(
        self,
        workspace: Workspace,
        servers: Mapping[str, LanguageServerConfig | None],
        problems: ProblemsSettings,
        *,
        source: Source = "auto",
        sandbox: SandboxSettings | None = None,
    ) -> WorkspaceIntelligence:
        """One session's view; nothing starts until a tool or an edit needs a server."""
        root = workspace.root
        self._users[root] = self._users.get(root, 0) + 1
        if sandbox is not None:
            self.sandboxes[root] = sandbox.for_servers()
        if self.editor is not None:
            return EditorIntelligence(
                self, workspace, servers, problems, editor=self.editor, source=source
            )
        return WorkspaceIntelligence(self, workspace, servers, problems, source=source)

    def status(self) -> dict[str, Any]:
        """Which servers agentls runs, and what the editor answers itself."""
        editor = self.editor
        offered = [m for m in METHODS if editor is not None and editor.offers(m)]
        return {
            "editor": {"name": editor.name, "answers": offered} if offered and editor else None,
            "servers": [
                {
                    "name": c.name, "root": str(c.root),
                    "state": "failed" if c.failure else "running" if c.running else "stopped",
                    "detail": c.failure or "",
                }
                for c in self.connections.values()
            ],
        }  # fmt: skip

    def changed(self) -> None:
        listener = self.on_change
        if listener is None:
            return
        try:
            listener(self.status())
        except Exception as exc:  # a status line never breaks a run
            log.info("language server status not told: %r", exc)

    def connection(
        self, root: Path, name: str, config: LanguageServerConfig, executable: str, project: Path
    ) -> Connection:
        from agentls.intelligence.connection import Connection

        key = (root, name, project)
        found = self.connections.get(key)
        sandbox = self.sandboxes.get(root, SandboxSettings())
        if found is None or found.config != config or found.sandbox != sandbox:
            if found is not None:  # the settings changed: the old one goes
                self._close_later([found])
            found = Connection(name, config, executable, project, workspace=root, sandbox=sandbox)
            found.listener = self.changed
            self.connections[key] = found
        return found

    def detach(self, root: Path) -> None:
        """A session closed; the last one of a workspace stops its servers."""
        left = self._users.get(root, 0) - 1
        if left > 0:
            self._users[root] = left
            return
        self._users.pop(root, None)
        self.sandboxes.pop(root, None)
        doomed = [c for k, c in list(self.connections.items()) if k[0] == root]
        for key in [k for k in self.connections if k[0] == root]:
            del self.connections[key]
        self._close_later(doomed)
        if doomed:
            self.changed()

    def _close_later(self, doomed: list[Connection]) -> None:
        if not doomed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop any more: end the processes directly
            for connection in doomed:
                _kill(connection)
            return
        task = loop.create_task(_close_all(doomed))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """Stop every server and wait for it (the end of a process)."""
        doomed = list(self.connections.values())
        self.connections.clear()
        self._users.clear()
        await _close_all(doomed)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


async def _close_all(connections: list[Connection]) -> None:
    await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


def _kill(connection: Connection) -> None:
    client = connection.client
    server = client._server if client is not None else None
    if server is not None and server.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            server.kill()
