"""The ConversationManager: the open sessions of a process, opening (new or resumed
from the log), settings loads, undo of a stored session, shutdown.

It owns the session store; each session is a `Conversation` (one_session.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentls.checkpoints.undo import RestoreTarget
from agentls.context.policy import needs_server_window
from agentls.contracts.errors import ConfigError
from agentls.conversation.command_files import AskedPrompt, CommandCatalog, load_commands, plain
from agentls.conversation.forking import fork_stored
from agentls.conversation.one_session import (
    Conversation,
    OpenedSession,
    SessionBusy,
    SharedParts,
)
from agentls.conversation.prompt_images import PromptImage, check_images
from agentls.conversation.reasoning import resolve_reasoning
from agentls.conversation.rewind import AskRef, RewindResult, rewind_stored
from agentls.conversation.run_builder import (
    warm_telemetry,
)
from agentls.conversation.settings import Settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.conversation.settings_layers import LoadedSettings, SettingsLayer
from agentls.conversation.undo import UndoResult, undo_stored
from agentls.intelligence.editor_answers import EditorLanguage
from agentls.intelligence.languages import Languages, StatusListener
from agentls.mcp.hub import McpHub, ServerReport
from agentls.permissions.modes import Mode
from agentls.pricing import price_for
from agentls.providers.base import ModelProvider
from agentls.providers.factory import make_provider
from agentls.runtime.registry import ToolRegistry
from agentls.session.lock import SessionClaim
from agentls.session.state import RunRecord
from agentls.session.store import SessionInfo, SessionNotFound, SessionStore
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.interface import ToolDefinition, Workspace
from agentls.workspace.local import LocalWorkspace

logger = logging.getLogger(__name__)
ProviderFactory = Callable[[Settings], ModelProvider]


def preload_providers() -> None:
    """Import every provider and its SDK now: a warm process does, before its first ask."""
    from agentls.providers import anthropic, openai_compat, warm

    warm.import_transport()
    del anthropic, openai_compat


def provider_from_settings(settings: Settings) -> ModelProvider:
    model = settings.model
    return make_provider(
        model.id, model.base_url, temperature=model.temperature, tool_choice=model.tool_choice
    )


class ConversationManager:
    def __init__(
        self,
        store: SessionStore,
        *,
        tools: Sequence[ToolDefinition[Any]] = BUILTIN_TOOLS,
        provider_factory: ProviderFactory = provider_from_settings,
        face: str = "cli",
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self._face = face  # who holds a session's lock while running it: "cli", "lsp", "acp"
        self._settings_files = SettingsFiles(store.state_dir)
        self._registry = ToolRegistry(tools)
        self.mcp = McpHub()  # MCP servers, shared by the sessions of a workspace
        self.notify = notify  # what is told outside a run (a hook failing at the end)
        if notify is not None:  # what a broken MCP server is reported by
            self.mcp.notify = notify
        self._languages = Languages()  # language servers, likewise
        self._provider_factory = provider_factory
        self._conversations: dict[str, Conversation] = {}

    def check_model(self, settings: Settings) -> None:
        """Make the settings' model provider without opening a session: ConfigError says
        what is missing (a key, a known model)."""
        self._provider_factory(settings)

    def use_editor(self, editor: EditorLanguage, on_status: StatusListener) -> None:
        """The editor answers the language questions it offers to (the language server's
        face); ``on_status`` hears which language servers run."""
        self._languages.editor = editor
        self._languages.on_change = on_status

    def load_settings(self, root: Path | None, *layers: SettingsLayer) -> LoadedSettings:
        """The settings files of ``root`` under ``layers`` (disk reads: a face's event loop
        calls this on a thread)."""
        return self._settings_files.load(root, *layers)

    def open_conversations(self) -> list[Conversation]:
        return list(self._conversations.values())

    def session_path(self, session_id: str) -> Path:
        """Where the session's log is (it may not exist)."""
        return self.store.path_for(session_id)

    def stored_sessions(self, workspace: Path | None = None) -> list[SessionInfo]:
        """The sessions in the state folder, of ``workspace`` or all (reads every log)."""
        return self.store.list(workspace)

    def prompt_commands(self, root: Path | None) -> CommandCatalog:
        """The prompt commands of ``root`` and the person's own, with what was skipped
        (reads the command files: a face's event loop calls this on a thread)."""
        return load_commands(root, self._settings_files, self._registry)

    def prompt(self, root: Path, prompt: str) -> AskedPrompt:
        """``prompt`` as the model is given it: a `/name` prompt expanded from its command
        file (read now: on a thread from an event loop), anything else as typed (`//…`
        with one slash). UnknownPromptCommand names the commands there are."""
        asked = plain(prompt)
        return asked if asked is not None else self.prompt_commands(root).prompt(prompt, root)

    async def prompt_async(self, root: Path, prompt: str) -> AskedPrompt:
        """As `prompt`, a command file read on a thread (a prompt naming none reads none)."""
        asked = plain(prompt)
        return asked if asked is not None else await asyncio.to_thread(self.prompt, root, prompt)

    async def mcp_report(
        self, root: Path, settings: Settings, *, start: bool, restart: bool = False
    ) -> list[ServerReport]:
        """The MCP servers of ``root``'s settings and their tools; ``restart`` tries again
        those that failed; ``start`` starts those not running."""
        if restart:
            self.mcp.reset_failed(root)
        return await self.mcp.report(root, settings.mcp_servers, start=start)

    async def undo(
        self, session_id: str, turn: int | None, *, target_for: Callable[[Path], RestoreTarget]
    ) -> UndoResult:
        """Undo in a session, open here or only stored (its lock taken meanwhile); the
        files put back through ``target_for(root)``. SessionNotFound, SessionBusy (it runs
        here), SessionHeld (it runs elsewhere), UndoRefused."""
        conversation = self.get(session_id)
        if conversation is not None:
            return await conversation.undo(turn, target_for)
        return await undo_stored(
            self.store, session_id, turn, face=self._face, target_for=target_for
        )

    async def rewind(
        self,
        session_id: str,
        ask: AskRef,
        *,
        target_for: Callable[[Path], RestoreTarget],
        conversation: bool = True,
        files: bool = True,
        dry_run: bool = False,
    ) -> RewindResult:
        """Rewind a session, open here or only stored (its lock taken meanwhile), to before
        ``ask`` (its number, from 1, or its run's id); the files put back through
        ``target_for(root)``. SessionNotFound, SessionBusy (it runs here), SessionHeld (it
        runs elsewhere: the holder named), RewindRefused."""
        conversation_here = self.get(session_id)
        if conversation_here is not None:
            return await conversation_here.rewind(
                ask, conversation=conversation, files=files, dry_run=dry_run,
                target_for=target_for,
            )  # fmt: skip
        return await rewind_stored(
            self.store, session_id, ask, face=self._face, target_for=target_for,
            conversation=conversation, files=files, dry_run=dry_run,
        )  # fmt: skip

    async def asks(self, session_id: str) -> list[RunRecord]:
        """The session's asks in order, numbered from 1 as `agentls show` prints them, those a
        rewind took back marked (the log read on a thread). SessionNotFound."""
        state = await asyncio.to_thread(lambda: self.store.open_state(session_id))
        return state.runs

    async def fork(self, session_id: str, before_ask: int | None = None) -> str:
        """A new session whose history is ``session_id``'s before its ask ``before_ask``
        (from 1), or all of it; its id. No file changes. The whole of a session is forked
        only while no run writes it: SessionBusy when it runs here, SessionHeld (the holder
        named) elsewhere. SessionNotFound, ForkRefused."""
        here = self.get(session_id)
        if before_ask is None and here is not None and here.running:
            raise SessionBusy(f"session {session_id} has a run going; fork it when it ends")
        return await fork_stored(self.store, session_id, before_ask, face=self._face)

    async def shutdown(self, grace_seconds: float = 5.0) -> None:
        """Abort every run, give each ``grace_seconds`` to write its end, stop the sessions'
        background processes, then the MCP and language servers (waiting for them), and
        close the sessions."""
        tasks = [c.current.task for c in self._conversations.values() if c.current is not None]
        for conversation in self._conversations.values():
            conversation.cancel()
        pending = [t for t in tasks if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=grace_seconds)
        await asyncio.gather(
            *(c.end_processes() for c in self._conversations.values()), return_exceptions=True
        )
        # SessionEnd hooks (each bounded by its timeout) of the sessions that ran here.
        ends = [c.end_session(self.notify) for c in self._conversations.values()]
        await asyncio.gather(*ends, return_exceptions=True)
        await self.mcp.aclose()
        await self._languages.aclose()
        self.close()

    def open(
        self,
        workspace: Workspace,
        settings: Settings,
        session_id: str | None = None,
        *,
        edits_reviewed_by_workspace: bool = False,
        mode: Mode | None = None,
        images: Sequence[PromptImage] = (),
    ) -> Conversation:
        """A new session, or an earlier one rebuilt from its log alone, in its own mode
        (its last mode_changed) unless ``mode``, one the person named for this opening
        (`--mode`), which is logged as a change.

        The provider is made first, so a missing key, a reasoning level the model cannot
        take or ``images`` it would not take (the first ask's) fail before anything is
        written.
        """
        known = self._known(session_id)
        if known is not None:
            return known
        provider, opened = self._provider_and_log(workspace, settings, session_id, images)
        return self._conversation(
            workspace, settings, provider, opened, edits_reviewed_by_workspace, mode
        )

    async def open_async(
        self,
        workspace: Workspace,
        settings: Settings,
        session_id: str | None = None,
        *,
        edits_reviewed_by_workspace: bool = False,
        mode: Mode | None = None,
        images: Sequence[PromptImage] = (),
    ) -> Conversation:
        """As `open`, the provider made (its SDK imported) and the session log made or read
        (a resumed one whole) on a thread."""
        known = self._known(session_id)
        if known is not None:
            return known
        provider, opened = await asyncio.to_thread(
            self._provider_and_log, workspace, settings, session_id, images
        )
        known = self._known(session_id)
        if known is not None:  # opened meanwhile
            opened.close()
            return known
        return self._conversation(
            workspace, settings, provider, opened, edits_reviewed_by_workspace, mode
        )

    def _known(self, session_id: str | None) -> Conversation | None:
        return None if session_id is None else self.get(session_id)

    def _provider_and_log(
        self,
        workspace: Workspace,
        settings: Settings,
        session_id: str | None,
        images: Sequence[PromptImage] = (),
    ) -> tuple[ModelProvider, OpenedSession]:
        provider = self._provider(settings)  # first: a missing key fails before any write
        check_images(images, provider.model_id, provider.image_limits)
        provider.warm_up()  # on the opening thread, not in the first model call
        warm_telemetry(settings.telemetry)  # likewise the exporters, when enabled
        if needs_server_window(provider.model_id, settings.context.window):
            provider.learn_window(self.store.state_dir)  # remembered, or asked now
        return provider, self._open_log(workspace, settings, session_id)

    def _provider(self, settings: Settings) -> ModelProvider:
        provider = self._provider_factory(settings)
        if settings.limits.max_cost_usd is not None and price_for(provider.model_id) is None:
            raise ConfigError(
                f"maxCostUsd needs the price of {provider.model_id}, which the model table "
                "(agentls/data/models.json) does not know; drop the cost budget or use "
                "maxTokens instead"
            )
        model = settings.model
        resolve_reasoning(  # a level the model cannot take is refused before any write
            model.reasoning, provider.model_id, answer_tokens=model.max_output_tokens,
            tool_choice=model.tool_choice,
        )  # fmt: skip
        return provider

    def _open_log(
        self, workspace: Workspace, settings: Settings, session_id: str | None
    ) -> OpenedSession:
        root = workspace.root
        if session_id is None:
            # A LocalWorkspace's root was resolved when it was made: not again here.
            resolved = isinstance(workspace, LocalWorkspace)
            session_id, log = self.store.create(root, settings.model.id, resolved=resolved)
            return OpenedSession(session_id, log, None, self._claim(session_id))
        log, state = self.store.open(session_id)
        if Path(state.workspace).resolve() != root.resolve():
            log.close()
            raise ConfigError(
                f"session {session_id} belongs to workspace {state.workspace}, not {root}"
            )
        return OpenedSession(session_id, log, state, self._claim(session_id))

    def _claim(self, session_id: str) -> SessionClaim:
        claim = self.store.claim(session_id, self._face)
        with contextlib.suppress(OSError):  # the first run says what is wrong
            claim.prepare()  # here (on the opening thread), not in the first ask
        return claim

    def _conversation(
        self,
        workspace: Workspace,
        settings: Settings,
        provider: ModelProvider,
        opened: OpenedSession,
        edits_reviewed_by_workspace: bool,
        mode: Mode | None = None,
    ) -> Conversation:
        resumed, session_id = opened.resumed, opened.session_id
        conversation = Conversation(
            opened,
            workspace=workspace,
            settings=settings,
            provider=provider,
            shared=SharedParts(
                registry=self._registry,
                settings_files=self._settings_files,
                state_dir=self.store.state_dir,
                mcp=self.mcp,
                languages=self._languages,
            ),
            edits_reviewed_by_workspace=edits_reviewed_by_workspace,
        )
        if resumed is not None:
            conversation.resume_context(resumed)
            conversation.resume_permissions(resumed)
        managed = settings.managed
        if mode is Mode.BYPASS and managed is not None and managed.policy.disables_bypass:
            mode = settings.permissions.mode  # the flag's bypass, already overridden and said
        if mode is not None and mode.value != (resumed.mode if resumed is not None else None):
            conversation.set_mode(mode)
        self._conversations[session_id] = conversation
        return conversation

    def get(self, session_id: str) -> Conversation | None:
        return self._conversations.get(session_id)

    def opened(self, session_id: str) -> Conversation:
        """The session open in this process; SessionNotFound when it is not."""
        conversation = self._conversations.get(session_id)
        if conversation is None:
            raise SessionNotFound(session_id)
        return conversation

    def close(self) -> None:
        for conversation in self._conversations.values():
            conversation.cancel()
            conversation.close()
        self._conversations.clear()
