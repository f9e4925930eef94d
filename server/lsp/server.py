"""AgentServer: the language server that hosts the ConversationManager."""

from __future__ import annotations

import asyncio
import logging
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.uris import to_fs_path

from agentls import __version__
from agentls.contracts.errors import ConfigError
from agentls.lsp.client_requests import ask_client
from agentls.lsp.questions import QuestionBoard
from agentls.workspace.roots import NoProjectRoot, choose_root

if TYPE_CHECKING:  # the conversation stack loads on first use, not before `initialize`
    from agentls.conversation.manager import Conversation, ConversationManager, RunHandle
    from agentls.conversation.settings import Settings
    from agentls.lsp.settings import FaceSettings
    from agentls.session.store import SessionStore

log = logging.getLogger(__name__)

# Clients that declare changeAnnotationSupport but apply annotated edits without
# showing a preview: their edits are reviewed as if they had no preview.
ANNOTATIONS_WITHOUT_PREVIEW = frozenset({"Sublime Text LSP"})
MAX_CLOSED_DOCUMENT_BYTES = 8 * 1024 * 1024


_ANSWERED = object()  # a message already answered with an error
_WARNING = types.MessageType.Warning


class AgentProtocol(LanguageServerProtocol):
    """$/cancelRequest also aborts the run a waited agentls.ask is holding.

    pygls cancels only its own result future for executeCommand, not the
    command's coroutine; without this the run would go on.
    """

    _server: AgentServer

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        handle = self._server.waited_runs.pop(msg_id, None)
        if handle is not None:
            handle.cancel()
        super()._handle_cancel_notification(msg_id)

    def current_request_id(self) -> Any:
        return self.msg_id

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A request whose params do not fit its method gets an InvalidParams answer.

        pygls only logs such a message, leaving the client waiting for ever. So
        it does with a notification's method sent with an id: that is answered
        InvalidRequest (and not run). Params may be left out, as JSON-RPC allows.
        """
        is_request = "id" in data and "method" in data
        if "method" in data and "params" not in data:
            data = {**data, "params": None}
        try:
            message = super().structure_message(data)
        except JsonRpcException as exc:
            if is_request:
                text = f"invalid params for {data.get('method')}: {exc.__cause__ or exc}"
                self._answer_error(data["id"], JsonRpcInvalidParams(message=text[:500]))
                return _ANSWERED
            raise
        if is_request and not hasattr(message, "id"):
            text = f"{data['method']} is a notification: send it without an id"
            self._answer_error(data["id"], JsonRpcInvalidRequest(message=text[:500]))
            return _ANSWERED
        return message

    def handle_message(self, message: Any) -> None:
        if message is _ANSWERED:
            return
        if self._shutdown and isinstance(message, RPCRequest):
            # The LSP says so; pygls drops them, leaving the client waiting.
            self._answer_error(message.id, JsonRpcInvalidRequest(message="the server shut down"))
            return
        super().handle_message(message)

    def _answer_error(self, msg_id: Any, error: JsonRpcException) -> None:
        self._send_response(msg_id, error=error.to_response_error())


class AgentServer(LanguageServer):
    protocol: AgentProtocol

    def __init__(self, store: SessionStore | None = None) -> None:
        super().__init__("agentls", __version__, protocol_cls=AgentProtocol)
        self.waited_runs: dict[Any, RunHandle] = {}  # request id -> run, for $/cancelRequest
        self._store = store
        self._manager: ConversationManager | None = None
        self._settings: Settings | None = None  # what the editor sent (files added per root)
        self._face: FaceSettings | None = None
        self.editor_layers: list[Any] = []
        self._told: set[str] = set()
        self.init_options: Any = None
        self.runs: dict[str, RunHandle] = {}
        self._documents_changed: asyncio.Condition | None = None
        self._settings_ready: asyncio.Event | None = None
        self.client_name = ""
        self.last_uri: str | None = None  # the document the person touched last
        self.last_session: str | None = None  # the session asked last
        self.questions = QuestionBoard(self)
        self._cannot_prompt = False

    # --- the core, loaded on first use -------------------------------------

    @property
    def store(self) -> SessionStore:
        if self._store is None:
            from agentls.session.store import SessionStore, default_state_dir

            self._store = SessionStore(default_state_dir())
        return self._store

    @property
    def manager(self) -> ConversationManager:
        if self._manager is None:
            from agentls.conversation.manager import ConversationManager

            self._manager = ConversationManager(self.store, face="lsp")
            self._manager.mcp.notify = lambda note: self.tell(f"agentls: {note}", _WARNING)
        return self._manager

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from agentls.conversation.settings import Settings

            self._settings = Settings()
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value

    @property
    def face(self) -> FaceSettings:
        """How this editor is asked (approvalsVia, reviewVia)."""
        if self._face is None:
            from agentls.lsp.settings import FaceSettings

            self._face = FaceSettings()
        return self._face

    @face.setter
    def face(self, value: FaceSettings) -> None:
        self._face = value

    # --- how the person is asked -------------------------------------------

    def prompts_failed(self) -> None:
        """The editor answered a prompt with an error: ask through code actions from now on."""
        if not self._cannot_prompt:
            self._cannot_prompt = True
            self.tell(
                "agentls: this editor cannot show prompts; approvals and edit reviews "
                "wait as code actions (agentls: Allow once / Apply / …) and diagnostics.",
                types.MessageType.Info,
            )

    def approvals_route(self) -> str:
        """Either "prompt" or "codeAction"."""
        via = self.face.approvals_via
        if via == "auto":
            return "codeAction" if self._cannot_prompt else "prompt"
        return via

    def review_route(self) -> str:
        """One of "editor" (its own preview), "prompt" or "codeAction"."""
        via = self.face.review_via
        if via != "auto":
            return via
        if self.client_previews_edits():
            return "editor"
        return "codeAction" if self._cannot_prompt else "prompt"

    def client_previews_edits(self) -> bool:
        workspace = self.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        declared = bool(edit and edit.document_changes and edit.change_annotation_support)
        return declared and self.client_name not in ANNOTATIONS_WITHOUT_PREVIEW

    def uses_code_actions(self) -> bool:
        return self.approvals_route() == "codeAction" or self.review_route() == "codeAction"

    def client_creates_files(self) -> bool:
        """Whether CreateFile may be sent (resourceOperations includes create)."""
        workspace = self.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        operations = (edit.resource_operations if edit is not None else None) or []
        return types.ResourceOperationKind.Create in operations

    def can_show_documents(self) -> bool:
        window = self.client_capabilities.window
        return bool(window and window.show_document and window.show_document.support)

    # --- documents -------------------------------------------------------

    def document_lines(self, uri: str) -> Sequence[str]:
        """The lines of a document: the editor's buffer when it is open, else a regular
        file on disk of at most MAX_CLOSED_DOCUMENT_BYTES in UTF-8, else none. (Reading
        a device, a pipe or a huge file would block the server or fill its memory.)"""
        doc = self.workspace.get_text_document(uri)
        if doc.version is None:
            try:
                info = Path(to_fs_path(uri) or "").stat()
            except (OSError, ValueError):
                return []
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CLOSED_DOCUMENT_BYTES:
                return []
        try:
            return doc.lines
        except (OSError, ValueError):  # gone since, unreadable, or not UTF-8
            return []

    @property
    def documents_changed(self) -> asyncio.Condition:
        """Notified on every didOpen/didChange/didClose, for edits waiting to land."""
        if self._documents_changed is None:
            self._documents_changed = asyncio.Condition()
        return self._documents_changed

    async def notify_documents_changed(self) -> None:
        async with self.documents_changed:
            self.documents_changed.notify_all()

    @property
    def settings_ready(self) -> asyncio.Event:
        """Set once the first workspace/configuration answer is in (or not coming)."""
        if self._settings_ready is None:
            self._settings_ready = asyncio.Event()
        return self._settings_ready

    async def wait_for_settings(self, timeout: float = 5.0) -> None:
        try:
            await asyncio.wait_for(self.settings_ready.wait(), timeout)
        except TimeoutError:
            log.warning("no settings from the editor after %g s; using what there is", timeout)
            self.settings_ready.set()

    # --- workspace roots and sessions -------------------------------------

    def roots(self) -> list[Path]:
        folders = [Path(to_fs_path(f.uri) or "") for f in self.workspace.folders.values()]
        if not folders and self.workspace.root_path:
            folders = [Path(self.workspace.root_path)]
        return [f.resolve() for f in folders if str(f)]

    def root_for(self, uri: str | None) -> Path:
        """The innermost folder holding ``uri``; never the home folder or `/` (roots.py)."""
        file, recent = (Path(to_fs_path(u) or "") if u else None for u in (uri, self.last_uri))
        try:
            choice = choose_root(self.roots(), file, recent)
        except NoProjectRoot as exc:
            raise JsonRpcInvalidParams(message=str(exc)) from None
        if choice.note is not None and choice.note not in self._told:
            self._told.add(choice.note)
            log.info("%s", choice.note)
            self.tell(choice.note)
        return choice.root

    def conversation_for(self, session_id: str | None, root: Path) -> Conversation:
        if session_id is not None:
            existing = self.manager.get(session_id)
            if existing is not None:
                return existing
        from agentls.lsp.workspace import LspWorkspace
        from agentls.session.store import SessionNotFound

        try:  # (a root that is no folder, e.g. a file named as rootUri: ValueError)
            workspace = LspWorkspace(self, root)
            conversation = self.manager.open(
                workspace,
                self.settings_for(root),
                session_id,
                edits_reviewed_by_workspace=True,
            )
        except (ConfigError, SessionNotFound, ValueError) as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        workspace.policy = conversation.policy
        return conversation

    def settings_for(self, root: Path) -> Settings:
        """The settings files for this root, under what the editor sent."""
        from agentls.lsp.settings import editor_layers

        loaded = self.manager.settings_files.load(root, *editor_layers(*self.editor_layers))
        for note in loaded.notes:
            if note not in self._told:
                self._told.add(note)
                self.tell(f"agentls: {note}", types.MessageType.Warning)
        return loaded.settings

    def apply_settings(self, settings: Settings, editor_layers: list[Any]) -> None:
        self.settings = settings
        self.editor_layers = editor_layers
        for conversation in self.manager.conversations.values():
            try:
                conversation.apply_settings(self.settings_for(conversation.workspace.root))
            except ConfigError as exc:
                self.tell(f"agentls: {exc}", types.MessageType.Error)

    # --- telling the person ------------------------------------------------

    async def show_document(self, uri: str) -> bool:
        """Open a file in the editor, where the client can; False otherwise."""
        if not self.can_show_documents():
            return False
        shown = await ask_client(
            self.window_show_document_async(types.ShowDocumentParams(uri, take_focus=True)),
            10.0,
            "showDocument",
        )
        return bool(shown and shown.success)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Logged, not shown: a person sees the errors of their own requests as answers.
        # (Input that is not JSON is answered by framing.py, which reads the messages.)
        log.warning("server error (%s): %s", getattr(source, "__name__", source), error)

    async def shutdown_runs(self, grace_seconds: float = 5.0) -> None:
        """Abort every run, let each write its end, then close the session logs."""
        handles = list(self.runs.values())
        for handle in handles:
            handle.cancel()
        if handles:
            await asyncio.wait([h.task for h in handles], timeout=grace_seconds)
        if self._manager is not None:  # never started: nothing to close
            await self._manager.mcp.aclose()
            self._manager.close()
