"""AgentServer: the language server that hosts the ConversationManager.

What belongs to the connected editor (capabilities, routes, requests, waiting
questions) is its `editor` (`editor/client.py`); the server keeps the sessions,
their runs and the settings. Other modules of the face take the editor client
through the `editor.EditorClient` Protocol and never import this module, except
to register their handlers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from agentls import __version__
from agentls.contracts.errors import ConfigError
from agentls.contracts.waiting import within
from agentls.lsp.chosen_mode import ChosenMode
from agentls.lsp.editor.client import LspEditorClient
from agentls.lsp.questions.board import QuestionBoard
from agentls.lsp.wire.agent_protocol import AgentProtocol
from agentls.workspace.roots import NoProjectRoot, choose_root

if TYPE_CHECKING:  # the conversation stack loads on first use, not before `initialize`
    from agentls.conversation.one_session import Conversation, RunHandle
    from agentls.conversation.open_sessions import ConversationManager
    from agentls.conversation.prompt_images import PromptImage
    from agentls.conversation.settings import Settings
    from agentls.lsp.files.lsp_workspace import LspWorkspace
    from agentls.lsp.files.session_link import SessionLink
    from agentls.session.store import SessionStore

log = logging.getLogger(__name__)
_WARNING = types.MessageType.Warning


class AgentServer(LanguageServer):
    protocol: AgentProtocol

    def __init__(self, store: SessionStore | None = None) -> None:
        super().__init__("agentls", __version__, protocol_cls=AgentProtocol)
        self.editor = LspEditorClient(
            self, settings=lambda: self.settings, state_dir=lambda: self.store.state_dir
        )
        self.waited_runs: dict[Any, RunHandle] = {}  # request id -> run, for $/cancelRequest
        self.protocol.on_cancel = self.cancel_waited_run
        self.runs: dict[str, RunHandle] = {}
        self.last_session: str | None = None  # the session asked last
        self._links: dict[str, SessionLink] = {}  # each open session's workspace link
        self._store = store
        self._manager: ConversationManager | None = None
        self._settings: Settings | None = None  # what the editor sent (files added per root)
        self.editor_layers: list[Any] = []
        self.init_options: Any = None
        self._settings_ready: asyncio.Event | None = None
        self._settings_updates = 0  # didChangeConfiguration refreshes still under way
        self._settings_settled: asyncio.Event | None = None
        self._settings_order = asyncio.Lock()
        self.settings_generation = 0  # counts applied settings: an open racing one re-reads
        self.modes = ChosenMode()  # agentls.setMode without a session
        self._told: set[str] = set()

    def cancel_waited_run(self, request_id: Any) -> None:
        """$/cancelRequest for a waited agentls.ask: its run ends too."""
        handle = self.waited_runs.pop(request_id, None)
        if handle is not None:
            handle.cancel()

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
            from agentls.conversation.open_sessions import ConversationManager
            from agentls.lsp.editor import intelligence as editor_intelligence

            self._manager = ConversationManager(
                self.store, face="lsp", notify=lambda note: self.tell(f"agentls: {note}", _WARNING)
            )
            editor_intelligence.connect(self._manager, self)
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

    # --- the editor's, under the names the commands use ----------------------

    @property
    def questions(self) -> QuestionBoard:
        return self.editor.questions

    async def show_document(self, uri: str) -> bool:
        return await self.editor.show_document(uri)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.editor.tell(message, kind)

    # --- settings ------------------------------------------------------------

    @property
    def settings_ready(self) -> asyncio.Event:
        """Set once the first workspace/configuration answer is in (or not coming)."""
        if self._settings_ready is None:
            self._settings_ready = asyncio.Event()
        return self._settings_ready

    @property
    def settings_settled(self) -> asyncio.Event:
        """Set while no settings change the editor announced is still being read."""
        if self._settings_settled is None:
            self._settings_settled = asyncio.Event()
            self._settings_settled.set()
        return self._settings_settled

    @contextlib.asynccontextmanager
    async def settings_update(self) -> AsyncIterator[None]:
        """Marks a refresh as under way from its first step, so a request the editor sent
        after the change waits for it (messages start in the order they came); refreshes
        run one after another."""
        self._settings_updates += 1
        self.settings_settled.clear()
        try:
            async with self._settings_order:  # one at a time: the last change read wins
                yield
        finally:
            self._settings_updates -= 1
            if self._settings_updates == 0:
                self.settings_settled.set()

    async def wait_for_settings(self, timeout: float = 5.0) -> None:
        """The first settings, and any change announced before this request, are in."""
        try:
            await within(self.settings_ready.wait(), timeout)
            await within(self.settings_settled.wait(), timeout)
        except TimeoutError:
            log.warning("no settings from the editor after %g s; using what there is", timeout)
            self.settings_ready.set()

    def tell_once(self, note: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """Say ``note`` the first time only (per server)."""
        if note not in self._told:
            self._told.add(note)
            self.tell(note, kind)

    # --- workspace roots and sessions -------------------------------------

    def _folders(self) -> list[Path]:
        """The editor's workspace folders as it sent them."""
        folders = [Path(to_fs_path(f.uri) or "") for f in self.workspace.folders.values()]
        if not folders and self.workspace.root_path:
            folders = [Path(self.workspace.root_path)]
        return [f for f in folders if str(f)]

    async def roots_async(self) -> list[Path]:
        """The workspace folders, resolved on a worker thread (resolving touches the disk)."""
        folders = self._folders()
        return await asyncio.to_thread(_resolved, folders)

    async def root_for_async(self, uri: str | None) -> Path:
        """The innermost folder holding ``uri``; never the home folder or `/` (roots.py).
        Chosen on a worker thread: resolving paths and looking for project markers touch
        the disk."""
        file, recent = (
            Path(to_fs_path(u) or "") if u else None for u in (uri, self.editor.last_uri)
        )
        folders = self._folders()
        try:
            choice = await asyncio.to_thread(lambda: choose_root(_resolved(folders), file, recent))
        except NoProjectRoot as exc:
            raise JsonRpcInvalidParams(message=str(exc)) from None
        if choice.note is not None and choice.note not in self._told:
            log.info("%s", choice.note)
            self.tell_once(choice.note)
        return choice.root

    async def conversation_for_async(
        self, session_id: str | None, root: Path, images: Sequence[PromptImage] = ()
    ) -> Conversation:
        """The open session, or one opened (or resumed) with its settings files and its
        log made or read on a thread: the editor stays served meanwhile. ``images``: the
        ask's, refused before a new session is made when the model would not take them."""
        existing = self._existing(session_id)
        if existing is not None:
            return existing
        link, workspace = self._workspace_for(root)
        generation = self.settings_generation
        try:
            settings = await self.settings_for_async(root)
            conversation = await self.manager.open_async(
                workspace, settings, session_id, edits_reviewed_by_workspace=True, images=images
            )
            # The policy is built with the conversation, from its workspace: the link is
            # bound to both once it is open, before any run can read it. (Opened meanwhile
            # by another request, the session keeps the link of its own workspace.)
            self._links.setdefault(conversation.session_id, link)
            link.bind(conversation.session_id, conversation)
            if self.settings_generation != generation:  # changed while it opened
                conversation.apply_settings(await self.settings_for_async(root))
        except _open_errors() as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        if self._links.get(conversation.session_id) is link:  # opened here, told once
            from agentls.lsp.process_events import tell_processes

            tell_processes(self.protocol.notify, conversation)
        return conversation

    def link_of(self, session_id: str) -> SessionLink | None:
        """The link of an open session's workspace (None: not opened through this server)."""
        return self._links.get(session_id)

    def _existing(self, session_id: str | None) -> Conversation | None:
        return None if session_id is None else self.manager.get(session_id)

    def _workspace_for(self, root: Path) -> tuple[SessionLink, LspWorkspace]:
        from agentls.lsp.files.lsp_workspace import LspWorkspace
        from agentls.lsp.files.session_link import SessionLink

        link = SessionLink()
        try:  # (a root that is no folder, e.g. a file named as rootUri: ValueError)
            return link, LspWorkspace(self.editor, root, link=link)
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None

    async def settings_for_async(self, root: Path) -> Settings:
        """The settings files for this root, under what the editor sent; the files are read on
        a thread, so the editor stays served."""
        from agentls.lsp.editor_settings import editor_layers

        layers = editor_layers(*self.editor_layers)
        loaded = await asyncio.to_thread(self.manager.load_settings, root, *layers)
        for note in loaded.notes:
            self.tell_once(f"agentls: {note}", types.MessageType.Warning)
        return loaded.settings

    async def apply_settings_async(self, settings: Settings, editor_layers: list[Any]) -> None:
        """What the editor sent, for new sessions and for each open one (files read on a thread)."""
        self.settings = settings
        self.editor_layers = editor_layers
        self.settings_generation += 1
        for conversation in self.manager.open_conversations():
            try:
                conversation.apply_settings(await self.settings_for_async(conversation.root))
            except ConfigError as exc:
                self.tell(f"agentls: {exc}", types.MessageType.Error)

    # --- ending ------------------------------------------------------------

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Logged, not shown: a person sees the errors of their own requests as answers.
        # (Input that is not JSON is answered by wire/framing.py, which reads the messages.)
        log.warning("server error (%s): %s", getattr(source, "__name__", source), error)

    async def shutdown_runs(self, grace_seconds: float = 5.0) -> None:
        """Abort every run, let each write its end, stop the background processes, then
        close the session logs."""
        if self._manager is not None:  # never started: no run, nothing to close
            await self._manager.shutdown(grace_seconds)

    def close_sessions(self) -> None:
        """Close what is still open at once (the event loop is gone): its processes killed."""
        if self._manager is not None:
            self._manager.close()


def _open_errors() -> tuple[type[Exception], ...]:
    """What opening a session raises that the editor is told of (loaded with the session)."""
    from agentls.session.store import SessionNotFound

    return ConfigError, SessionNotFound, ValueError


def _resolved(folders: list[Path]) -> list[Path]:
    return [folder.resolve() for folder in folders]
