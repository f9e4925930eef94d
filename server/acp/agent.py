"""AgentlsAgent: ACP requests as ConversationManager and Conversation calls.

No agent logic lives here: a prompt is one `Conversation.start`, its callbacks
become updates (`observer.py`), the gate's questions become permission
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
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
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
from agentls.acp.modes import config_options, mode_state
from agentls.acp.observer import AcpObserver
from agentls.acp.opening import open_session
from agentls.acp.prompt_blocks import prompt_text
from agentls.acp.session import AcpSession
from agentls.acp.stop_reasons import stop_reason
from agentls.contracts.errors import ConfigError
from agentls.contracts.tooling import ToolIntent
from agentls.conversation.one_session import SessionBusy
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import Settings, load_settings
from agentls.permissions.modes import parse_mode
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
                # The core takes text prompts: files come as text, images are not passed on.
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
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
        self._announce(session)
        return NewSessionResponse(
            session_id=session.id,
            modes=mode_state(session.mode),
            config_options=config_options(session.mode, session.conversation.model_id),
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
        self._announce(session)
        return LoadSessionResponse(
            modes=mode_state(session.mode),
            config_options=config_options(session.mode, session.conversation.model_id),
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

    def _announce(self, session: AcpSession) -> None:
        # Pushed last in the handler: the answer is written before the pump runs.
        session.updates.push(
            AvailableCommandsUpdate(
                session_update="available_commands_update", available_commands=commands.COMMANDS
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
        elif config_id != "model" or value != model:
            raise invalid_params(
                f"cannot set {config_id} to {value!r}: the model is chosen per "
                "session (start agentls acp --model PROVIDER:NAME); the mode is one of "
                "default, accept-edits, plan, bypass"
            )
        return SetSessionConfigOptionResponse(config_options=config_options(session.mode, model))

    # --- prompts -------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        # Resource links are resolved against the root: path calls, on a thread.
        text = (await asyncio.to_thread(prompt_text, prompt, session.workspace.root)).strip()
        if not text:
            raise invalid_params("the prompt is empty")
        command = commands.command_of(text)
        if command is not None:
            if session.conversation.running:
                raise invalid_request("a prompt is running: cancel it first")
            told = await commands.run_command(session, *command)
            return await self._finish(session, "end_turn", told)
        calls: dict[str, ToolIntent] = {}  # the run's open calls: what a request is about
        observer = AcpObserver(
            updates=session.updates,
            root=session.workspace.root,
            window=session.conversation.context_window,
            cost_before=session.conversation.cost_usd,
            calls=calls,
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
                text, approver=approver, observer=observer
            )
        except SessionBusy as exc:  # here, or in another agentls process
            raise invalid_request(f"agentls: {exc}") from None
        said = told_guidance(session.handle.guidance.lines())
        if said is not None:  # the run's first message: which instruction files it uses
            session.updates.push(said)
        result = await session.handle.result()
        reason, note = stop_reason(result)
        return await self._finish(session, reason, note)

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
