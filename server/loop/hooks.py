"""Places to attach work around a turn's actions (checkpoints, outside changes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agentls.contracts.tooling import ToolIntent


class TurnHooks(Protocol):
    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        """Called before a turn's tool calls run."""
        ...

    async def after_act(self, run_id: str, turn: int) -> list[str]:
        """Called after they ran (also after an abort); returns notes for the model."""
        ...


class NoHooks:
    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        return None

    async def after_act(self, run_id: str, turn: int) -> list[str]:
        return []


class ChainedHooks:
    """Several hooks in order; their notes add up."""

    def __init__(self, *hooks: TurnHooks | None) -> None:
        self.hooks = [h for h in hooks if h is not None]

    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        for hook in self.hooks:
            await hook.before_act(run_id, turn, intents)

    async def after_act(self, run_id: str, turn: int) -> list[str]:
        notes: list[str] = []
        for hook in self.hooks:
            notes += await hook.after_act(run_id, turn)
        return notes
