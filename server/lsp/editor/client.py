"""LspEditorClient: the connected editor over pygls (see `editor.py` for what it offers).

It keeps what belongs to the client rather than to the sessions: its name and
capabilities, how it asks (the face settings and whether prompts failed), the
document touched last, the questions waiting as code actions, and every
server→client request, shielded and bounded (`client_requests.ask_client`).
"""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from agentls.lsp.editor import routes
from agentls.lsp.editor.protocols import Kind, PromptReply, Route
from agentls.lsp.questions.board import QuestionBoard
from agentls.lsp.wire.client_requests import ask_client

if TYPE_CHECKING:
    from pygls.workspace import Workspace

    from agentls.conversation.settings import FaceSettings, Settings

T = TypeVar("T")
MAX_CLOSED_DOCUMENT_BYTES = 8 * 1024 * 1024
CANNOT_PROMPT = (
    "agentls: this editor cannot show prompts; approvals and edit reviews "
    "wait as code actions (agentls: Allow once / Apply / …) and diagnostics."
)


class LspEditorClient:
    def __init__(
        self,
        server: LanguageServer,
        *,
        settings: Callable[[], Settings],
        state_dir: Callable[[], Path],
    ) -> None:
        self._server = server
        self._settings = settings  # what the editor sent, kept by the server
        self._state_dir = state_dir  # the store's, which loads on first use
        self.name = ""  # clientInfo.name
        self.last_uri: str | None = None  # the document the person touched last
        self._face: FaceSettings | None = None
        self._cannot_prompt = False
        self._documents_changed: asyncio.Condition | None = None
        self.questions = QuestionBoard(self)

    @property
    def settings(self) -> Settings:
        return self._settings()

    @property
    def state_dir(self) -> Path:
        return self._state_dir()

    @property
    def face(self) -> FaceSettings:
        """How this editor is asked (approvalsVia, reviewVia)."""
        if self._face is None:
            from agentls.conversation.settings import FaceSettings

            self._face = FaceSettings()
        return self._face

    @face.setter
    def face(self, value: FaceSettings) -> None:
        self._face = value

    @property
    def capabilities(self) -> types.ClientCapabilities:
        return self._server.client_capabilities

    @property
    def documents(self) -> Workspace:
        return self._server.workspace

    @property
    def documents_changed(self) -> asyncio.Condition:
        """Notified on every didOpen/didChange/didClose, for edits waiting to land."""
        if self._documents_changed is None:
            self._documents_changed = asyncio.Condition()
        return self._documents_changed

    async def notify_documents_changed(self) -> None:
        async with self.documents_changed:
            self.documents_changed.notify_all()

    # --- capabilities and routes ----------------------------------------------

    def can_show_documents(self) -> bool:
        return routes.shows_documents(self.capabilities)

    def creates_files(self) -> bool:
        return routes.creates_files(self.capabilities)

    def saves_edits(self) -> bool:
        return routes.saves_edits(self.capabilities)

    def previews_edits(self) -> bool:
        return routes.previews_edits(self.capabilities, self.name)

    def route(self, kind: Kind) -> Route:
        if kind == "approval":
            return routes.approvals_route(self.face.approvals_via, self._cannot_prompt)
        return routes.review_route(self.face.review_via, self.previews_edits(), self._cannot_prompt)

    def route_is_fixed(self, kind: Kind) -> bool:
        """The settings name the route: a failing prompt is then a "no", not a fallback."""
        via = self.face.approvals_via if kind == "approval" else self.face.review_via
        return via != "auto"

    def prompts_failed(self) -> None:
        """The editor answered a prompt with an error: ask through code actions from now on."""
        if not self._cannot_prompt:
            self._cannot_prompt = True
            self.tell(CANNOT_PROMPT, types.MessageType.Info)

    def uses_code_actions(self) -> bool:
        return "codeAction" in (self.route("approval"), self.route("review"))

    # --- requests ---------------------------------------------------------------

    async def request(
        self,
        request: Awaitable[T],
        timeout: float,
        what: str,
        *,
        errors: list[Exception] | None = None,
    ) -> T | None:
        return await ask_client(request, timeout, what, errors=errors)

    async def prompt(
        self, message: str, titles: Sequence[str], timeout: float, what: str
    ) -> PromptReply:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=message,
            actions=[types.MessageActionItem(title) for title in titles],
        )
        errors: list[Exception] = []
        answer = await self.request(
            self._server.window_show_message_request_async(params), timeout, what, errors=errors
        )
        return PromptReply(answer.title if answer is not None else None, failed=bool(errors))

    async def show_document(self, uri: str) -> bool:
        """Open a file in the editor, where the client can; False otherwise."""
        if not self.can_show_documents():
            return False
        params = types.ShowDocumentParams(uri, take_focus=True)
        shown = await self.request(
            self._server.window_show_document_async(params), 10.0, "showDocument"
        )
        return bool(shown and shown.success)

    async def apply_edit(
        self, params: types.ApplyWorkspaceEditParams, timeout: float, what: str
    ) -> types.ApplyWorkspaceEditResult | None:
        return await self.request(self._server.workspace_apply_edit_async(params), timeout, what)

    async def configuration(self, section: str) -> object | None:
        """The client's workspace/configuration for ``section``, if it offers it."""
        workspace = self.capabilities.workspace
        if workspace is None or not workspace.configuration:
            return None
        params = types.ConfigurationParams([types.ConfigurationItem(section=section)])
        answer = await self.request(
            self._server.workspace_configuration_async(params), 10.0, "workspace/configuration"
        )
        return answer[0] if answer else None

    def offers_configuration(self) -> bool:
        workspace = self.capabilities.workspace
        return bool(workspace is not None and workspace.configuration)

    # --- notifications ------------------------------------------------------------

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self._server.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def publish_diagnostics(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self._server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    # --- documents ----------------------------------------------------------------

    async def document_lines(self, uri: str) -> Sequence[str]:
        """The lines of a document: the editor's buffer when it is open, else a regular
        file on disk of at most MAX_CLOSED_DOCUMENT_BYTES in UTF-8 (read on a thread),
        else none. (A device, a pipe or a huge file would block or fill the memory.)"""
        doc = self.documents.get_text_document(uri)
        if doc.version is not None:
            return doc.lines
        return await asyncio.to_thread(read_closed_lines, uri)


def read_closed_lines(uri: str) -> list[str]:
    """A closed document's lines from disk, or none (not a regular file, too big, not UTF-8)."""
    try:
        path = Path(to_fs_path(uri) or "")
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CLOSED_DOCUMENT_BYTES:
            return []
        return path.read_text(encoding="utf-8").splitlines(keepends=True)
    except (OSError, ValueError):  # gone, unreadable, or not UTF-8
        return []
