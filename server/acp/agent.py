"""AgentlsAgent: ACP requests as ConversationManager and Conversation calls.

No agent logic lives here: a prompt is one `Conversation.start` (or, while a run
works, `Conversation.steer`: the person's words for it), its callbacks become
updates (`observer.py`), the gate's questions and proposed plans become permission
requests (`approver.py`), and file access goes through `AcpWorkspace`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    AuthenticateResponse,
    AvailableCommandsUpdate,
    ClientCapabilities,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TextContentBlock,
)

from agentls import __version__
from agentls.acp import commands
from agentls.acp.approver import AcpApprover
from agentls.acp.auth import AUTH_METHOD, auth_methods
from agentls.acp.errors import auth_required, internal, invalid_params, invalid_request
from agentls.acp.history_updates import call_titles, history_updates
from agentls.acp.memory_command import told_guidance
from agentls.acp.modes import REASONING_OPTION, mode_state
from agentls.acp.observer import AcpObserver
from agentls.acp.opening import open_session
from agentls.acp.prompt_blocks import BadImage, PromptParts, plain_text, prompt_parts
from agentls.acp.session import AcpSession
from agentls.acp.stop_reasons import stop_reason
from agentls.contracts.errors import ConfigError
from agentls.contracts.reasoning import parse_level
from agentls.contracts.tooling import ToolIntent
from agentls.conversation.command_files import UnknownPromptCommand
from agentls.conversation.one_session import RunHandle, SessionBusy
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import Settings, load_settings
from agentls.permissions.modes import parse_mode
from agentls.session.lock import SessionHeld
from agentls.session.store import SessionNotFound

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1


class AgentlsAgent:
    def __init__(self, manager: ConversationManager, model: str | None = None) -> None:
        self.manager = manager
        self.model = model
        self.client: Client | None = None
        self.capabilities = ClientCapabilities()
        self.sessions: dict[str, AcpSession] = {}

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    # --- lifecycle --------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                # Files come as text; images go to the model (checked against it first).
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(), fork=SessionForkCapabilities()
                ),
            ),
            auth_methods=auth_methods(self._model_probe()),
            agent_info=Implementation(name="agentls", title="agentls", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        if method_id != AUTH_METHOD:
            raise invalid_params(f"unknown auth method {method_id!r}")
        try:
            self.manager.check_model(self._settings_probe())
        except ConfigError as exc:
            raise auth_required(f"agentls: {exc}") from None
        return AuthenticateResponse()

    def _settings_probe(self) -> Settings:
        return load_settings({"model": self.model})

    def _model_probe(self) -> str:
        try:
            return self._settings_probe().model.id
        except ConfigError:  # a bad --model: session/new says what is wrong
            return self.model or ""

    # --- sessions ------------------------------------------------------------

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, None, mcp_servers)
        await self._announce(session)
        return NewSessionResponse(
            session_id=session.id,
            modes=mode_state(session.mode),
            config_options=session.config_options(),
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        known = self.sessions.get(session_id)
        if known is not None and known.conversation.running:
            raise invalid_request("that session has a prompt running")
        session = known or await self._open(cwd, session_id, mcp_servers)
        log_path = self.manager.session_path(session.id)
        titles = await asyncio.to_thread(call_titles, log_path)
        history = history_updates(session.conversation.history(), session.workspace.root, titles)
        for update in history:
            session.updates.push(update)
        await session.updates.flush()  # the history arrives before the answer
        await self._announce(session)
        return LoadSessionResponse(
            modes=mode_state(session.mode),
            config_options=session.config_options(),
        )

    async def fork_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """A new session whose history is ``session_id``'s, whole or (``_meta``
        ``{"agentls": {"ask": N}}``) before its ask N; no file changes. Opened here like a
        loaded session, without its history sent again."""
        before_ask = _fork_ask(kwargs.get("agentls"))
        try:
            forked = await self.manager.fork(session_id, before_ask)
        except (SessionBusy, SessionHeld) as exc:  # a whole fork while it runs
            raise invalid_request(f"agentls: {exc}") from None
        except (SessionNotFound, ValueError) as exc:
            raise invalid_params(f"agentls: {exc}") from None
        session = await self._open(cwd, forked, mcp_servers)
        await self._announce(session)
        return ForkSessionResponse(
            session_id=session.id,
            modes=mode_state(session.mode),
            config_options=session.config_options(),
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        root = Path(cwd) if cwd else None
        infos = await asyncio.to_thread(self.manager.stored_sessions, root)  # reads every log
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.id,
                    cwd=info.workspace,
                    title=info.first_prompt or None,
                    updated_at=info.created_at or None,
                )
                for info in infos
            ]
        )

    async def _open(
        self, cwd: str, session_id: str | None, servers: list[Any] | None
    ) -> AcpSession:
        session = await open_session(
            manager=self.manager,
            client=self._client(),
            capabilities=self.capabilities,
            model=self.model,
            cwd=cwd,
            session_id=session_id,
            servers=servers,
        )
        # A second load of one session while the first was opening: the first stays.
        return self.sessions.setdefault(session.id, session)

    async def _announce(self, session: AcpSession, *, if_changed: bool = False) -> None:
        """The session's commands (the command files read on a thread), pushed last in the
        handler: the answer is written before the pump runs."""
        catalog = await asyncio.to_thread(self.manager.prompt_commands, session.workspace.root)
        available = commands.available_commands(catalog)
        if if_changed and available == session.commands:
            return
        session.commands = available
        session.updates.push(
            AvailableCommandsUpdate(
                session_update="available_commands_update", available_commands=available
            )
        )

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        try:
            session.set_mode(parse_mode(mode_id))
        except ValueError as exc:
            raise invalid_params(str(exc)) from None
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        model = session.conversation.model_id
        if config_id == "mode" and isinstance(value, str):
            await self.set_session_mode(session_id, value)
        elif config_id == REASONING_OPTION and isinstance(value, str):
            try:
                session.set_reasoning(parse_level(value))
            except (ValueError, ConfigError) as exc:
                raise invalid_params(f"agentls: {exc}") from None
        elif config_id != "model" or value != model:
            raise invalid_params(
                f"cannot set {config_id} to {value!r}: the model is chosen per "
                "session (start agentls acp --model PROVIDER:NAME); the mode is one of "
                "default, accept-edits, plan, bypass; reasoning one of off, low, medium, high"
            )
        return SetSessionConfigOptionResponse(config_options=session.config_options())

    # --- prompts -------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        # Text alone is read at once: a prompt sent during a run is queued for it before
        # anything else happens. Resource links are resolved against the root (path calls,
        # on a thread) and image blocks decoded.
        plain = plain_text(prompt)
        if plain is not None:
            parts = PromptParts(plain)
        else:
            try:
                parts = await asyncio.to_thread(prompt_parts, prompt, session.workspace.root)
            except BadImage as exc:
                raise invalid_params(f"agentls: {exc}") from None
        text = parts.text.strip()
        if not text and not parts.images:
            raise invalid_params("the prompt is empty")
        command = commands.command_of(text) if not parts.images else None
        if command is not None:
            if session.conversation.running:
                raise invalid_request("a prompt is running: cancel it first")
            told = await commands.run_command(session, *command)
            return await self._finish(session, "end_turn", told)
        if session.conversation.running and session.handle is not None and not parts.images:
            steered = await self._steer(session, session.handle, text)
            if steered is not None:
                return steered
        try:  # `/name args`: a command file's text
            asked = await self.manager.prompt_async(session.workspace.root, text)
        except UnknownPromptCommand as exc:
            return await self._finish(session, "end_turn", str(exc))
        calls: dict[str, ToolIntent] = {}  # the run's open calls: what a request is about
        observer = AcpObserver(
            updates=session.updates,
            root=session.workspace.root,
            window=session.conversation.context_window,
            cost_before=session.conversation.cost_usd,
            calls=calls,
            announce_mode=session.announce_mode,
        )
        approver = AcpApprover(
            session.asker,
            session.conversation,
            session.workspace.approved_calls,
            root=session.workspace.root,
            calls=calls,
        )
        try:
            session.handle = await session.conversation.start(
                asked.text,
                approver=approver,
                observer=observer,
                command=asked.command,
                images=parts.images,
            )
        except SessionBusy as exc:  # here, or in another agentls process
            raise invalid_request(f"agentls: {exc}") from None
        except ConfigError as exc:  # an image the model would not take: nothing was sent
            raise invalid_params(f"agentls: {exc}") from None
        said = told_guidance([*asked.lines(), *session.handle.guidance.lines()])
        if said is not None:  # the run's first message: its command file, instruction files
            session.updates.push(said)
        result = await session.handle.result()
        reason, note = stop_reason(result)
        await self._announce(session, if_changed=True)  # a command file the run wrote
        return await self._finish(session, reason, note)

    async def _steer(
        self, session: AcpSession, handle: RunHandle, text: str
    ) -> PromptResponse | None:
        """A prompt sent while one runs: the person's words for the running run, given to
        the model at its next turn boundary; answered when that run ends, as it ended.
        None when the run ended before taking them (not cancelled): they start a run."""
        steer = session.conversation.steer(text)
        if steer is None:
            return None
        result = await handle.result()
        reason, _ = stop_reason(result)  # the first prompt's answer says why
        if not steer.delivered and reason != "cancelled":
            return None
        await session.updates.flush()
        return PromptResponse(stop_reason=reason)

    async def _finish(self, session: AcpSession, reason: Any, note: str | None) -> PromptResponse:
        if note:
            session.updates.push(
                AgentMessageChunk(
                    session_update="agent_message_chunk",
                    content=TextContentBlock(type="text", text=note),
                )
            )
        await session.updates.flush()  # every update of the turn comes before its answer
        return PromptResponse(stop_reason=reason)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()  # the run aborts; its command's process group is killed

    # --- helpers -------------------------------------------------------------

    def _client(self) -> Client:
        if self.client is None:
            raise internal("no client connection")
        return self.client

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise invalid_params(f"agentls: {SessionNotFound(session_id)}")  # none open here
        return session

    def cancel_all(self) -> None:
        for session in self.sessions.values():
            session.cancel()

    async def shutdown(self, grace_seconds: float = 5.0) -> None:
        """Abort every run, let each write its end, then close MCP servers and logs."""
        await self.manager.shutdown(grace_seconds)  # runs aborted, each given the grace
        for session in self.sessions.values():
            session.updates.close()


def _fork_ask(meta: object) -> int | None:
    """The ask a fork's history ends before, from ``_meta.agentls.ask`` (None: whole)."""
    if not isinstance(meta, dict) or meta.get("ask") is None:
        return None
    ask = meta["ask"]
    if not isinstance(ask, int) or isinstance(ask, bool) or ask < 1:
        raise invalid_params("_meta.agentls.ask: a fork names an ask by its number, from 1")
    return ask
