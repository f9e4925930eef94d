"""The language intelligence of every session: the servers, the editor, and who answers.

`Languages` is what the conversation holds: the hub of agentls's own servers
(`hub.ServerHub`, shared by a workspace's sessions), the editor's own
intelligence where the face has one (the language server sets `editor`), and
the status the editor's status line shows (`on_change`). `attach` composes a
session's `LanguageIntelligence`: a router (`router`) over agentls's own
servers (`own_servers`) and the editor's answers (`editor_answers`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agentls.intelligence.answers import Answers
from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.intelligence.editor_answers import METHODS, EditorAnswers, EditorLanguage
from agentls.intelligence.hub import ServerHub
from agentls.intelligence.own_servers import OwnServers
from agentls.intelligence.router import RoutedIntelligence, Source
from agentls.workspace.interface import Workspace
from agentls.workspace.sandbox import SandboxSettings

log = logging.getLogger(__name__)
# Told the language servers' state whenever it changes (the editors' status).
StatusListener = Callable[[dict[str, Any]], None]


class Languages:
    def __init__(self) -> None:
        self.hub = ServerHub(on_change=self.changed)
        # The editor's own intelligence, where the face has one (the language server).
        self.editor: EditorLanguage | None = None
        self.on_change: StatusListener | None = None

    def attach(
        self,
        workspace: Workspace,
        servers: Mapping[str, LanguageServerConfig | None],
        problems: ProblemsSettings,
        *,
        source: Source = "auto",
        sandbox: SandboxSettings | None = None,
    ) -> RoutedIntelligence:
        """One session's intelligence; nothing starts until a tool or an edit needs a server."""
        self.hub.join(workspace.root, sandbox)
        answers = Answers(workspace)
        own = OwnServers(self.hub, answers, servers, problems)
        editor = None if self.editor is None else EditorAnswers(self.editor, answers, problems)
        return RoutedIntelligence(answers, own, editor, problems, source=source)

    def detach(self, root: Path) -> None:
        """A session of ``root`` closed; the last one stops the workspace's servers."""
        self.hub.leave(root)

    def status(self) -> dict[str, Any]:
        """Which servers agentls runs, and what the editor answers itself."""
        editor = self.editor
        offered = [m for m in METHODS if editor is not None and editor.offers(m)]
        return {
            "editor": {"name": editor.name, "answers": offered} if offered and editor else None,
            "servers": self.hub.status(),
        }

    def changed(self) -> None:
        listener = self.on_change
        if listener is None:
            return
        try:
            listener(self.status())
        except Exception as exc:  # a status line never breaks a run
            log.info("language server status not told: %r", exc)

    async def aclose(self) -> None:
        """Stop every server and wait for it (the end of a process)."""
        await self.hub.aclose()
