"""A fake editor client for the face's unit tests: scripted prompt replies, recorded
messages and diagnostics, real routes and a real question board."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types

from agentls.conversation.settings import FaceSettings, Settings, load_settings
from agentls.lsp.editor import routes
from agentls.lsp.editor.protocols import EditorClient, Kind, PromptReply, Route
from agentls.lsp.questions.board import QuestionBoard

T = TypeVar("T")


class FakeEditor:
    def __init__(
        self,
        *,
        face: FaceSettings | None = None,
        settings: dict[str, Any] | None = None,
        replies: Sequence[PromptReply] = (),
        previews: bool = False,
        shows_documents: bool = True,
        state_dir: Path | None = None,
    ) -> None:
        self.name = "fake"
        self.last_uri: str | None = None
        self.face = face or FaceSettings()
        self.settings: Settings = load_settings(settings or {})
        self.replies = list(replies)
        self.previews = previews
        self.shows_documents = shows_documents
        self.state_dir = state_dir or Path("/nonexistent")
        self.cannot_prompt = False
        self.prompts: list[tuple[str, list[str]]] = []
        self.told: list[str] = []
        self.shown: list[str] = []
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.questions = QuestionBoard(self)
        self.documents: Any = None
        self.documents_changed = asyncio.Condition()

    def can_show_documents(self) -> bool:
        return self.shows_documents

    def creates_files(self) -> bool:
        return True

    def saves_edits(self) -> bool:
        return False

    def previews_edits(self) -> bool:
        return self.previews

    def route(self, kind: Kind) -> Route:
        if kind == "approval":
            return routes.approvals_route(self.face.approvals_via, self.cannot_prompt)
        return routes.review_route(self.face.review_via, self.previews, self.cannot_prompt)

    def route_is_fixed(self, kind: Kind) -> bool:
        via = self.face.approvals_via if kind == "approval" else self.face.review_via
        return via != "auto"

    def prompts_failed(self) -> None:
        if not self.cannot_prompt:
            self.cannot_prompt = True
            self.told.append("cannot prompt")

    def uses_code_actions(self) -> bool:
        return "codeAction" in (self.route("approval"), self.route("review"))

    async def request(
        self,
        request: Awaitable[T],
        timeout: float,
        what: str,
        *,
        errors: list[Exception] | None = None,
    ) -> T | None:
        return await request

    async def prompt(
        self, message: str, titles: Sequence[str], timeout: float, what: str
    ) -> PromptReply:
        self.prompts.append((message, list(titles)))
        return self.replies.pop(0) if self.replies else PromptReply(None)

    async def show_document(self, uri: str) -> bool:
        self.shown.append(uri)
        return self.shows_documents

    async def apply_edit(
        self, params: types.ApplyWorkspaceEditParams, timeout: float, what: str
    ) -> types.ApplyWorkspaceEditResult | None:
        return types.ApplyWorkspaceEditResult(applied=True)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.told.append(message)

    def publish_diagnostics(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self.published[uri] = diagnostics

    async def document_lines(self, uri: str) -> Sequence[str]:
        return []


def as_client(fake: FakeEditor) -> EditorClient:
    """The fake as the Protocol (mypy checks that it fits)."""
    return fake


class Emitted:
    """An emit callback that records events and lets a test wait for one."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self._changed = asyncio.Event()

    def __call__(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append((kind, payload))
        self._changed.set()

    async def wait_for(self, kind: str) -> dict[str, Any]:
        while True:
            for seen, payload in self.events:
                if seen == kind:
                    return payload
            self._changed.clear()
            await self._changed.wait()

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]
