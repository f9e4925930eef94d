"""One ACP session: its conversation, its ACP workspace, its updates and its run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp.schema import AvailableCommand, ConfigOptionUpdate, CurrentModeUpdate

from agentls.acp.modes import config_options
from agentls.acp.permission import PermissionAsker
from agentls.acp.updates import UpdateStream
from agentls.acp.workspace import AcpWorkspace
from agentls.contracts.reasoning import ReasoningLevel
from agentls.conversation.one_session import Conversation, RunHandle
from agentls.permissions.modes import Mode


@dataclass
class AcpSession:
    conversation: Conversation
    workspace: AcpWorkspace
    updates: UpdateStream
    asker: PermissionAsker
    handle: RunHandle | None = field(default=None, repr=False)
    # The commands the client was last told of (sent again only when they change).
    commands: list[AvailableCommand] = field(default_factory=list, repr=False)

    @property
    def id(self) -> str:
        return self.conversation.session_id

    @property
    def mode(self) -> Mode:
        return self.conversation.mode

    def set_mode(self, mode: Mode) -> None:
        self.conversation.set_mode(mode)
        self.announce_mode(mode.value)

    def announce_mode(self, mode: str) -> None:
        """The client shows the session's mode: a change (asked for, or a plan the
        person approved during a run) is pushed as both of ACP's ways to say it."""
        self.updates.push(
            CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
        )
        self.updates.push(
            ConfigOptionUpdate(
                session_update="config_option_update", config_options=self.config_options()
            )
        )

    def set_reasoning(self, level: ReasoningLevel) -> None:
        """The level of the session's next prompts (ConfigError: the model cannot take it)."""
        self.conversation.set_reasoning(level)

    def config_options(self) -> list[Any]:
        conversation = self.conversation
        return config_options(
            self.mode,
            conversation.model_id,
            conversation.reasoning_level,
            conversation.reasoning_levels(),
        )

    def cancel(self) -> bool:
        return self.conversation.cancel()
