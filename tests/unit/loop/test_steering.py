"""Steering through the loop: what the person says while a run works reaches the model at
the next turn boundary (after the tool results, or as the next prompt when the model had
answered), is logged where it was delivered, replays exactly, and is not delivered when
the run ends first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agentls.contracts.messages import TextBlock, ToolResultBlock
from agentls.contracts.model_io import ModelEvent, ModelInput
from agentls.contracts.outcomes import TerminalReason
from agentls.conversation.one_session import Conversation
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.run_replay import replay_session
from agentls.conversation.settings import load_settings
from agentls.providers.scripted import ScriptedProvider
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace
from tests.unit.helpers import Gates, call, conversation, events_of, make_tools


class HeldModel(ScriptedProvider):
    """Its first answer waits until the test lets it go."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        super().__init__(turns)
        self.answering = asyncio.Event()
        self.go = asyncio.Event()

    async def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        if not self.go.is_set():
            self.answering.set()
            await self.go.wait()
        async for event in super().stream(request):
            yield event


async def test_words_sent_while_the_model_answers_make_another_turn(tmp_path: Path) -> None:
    provider = HeldModel([
        {"text": "First answer."},
        {"expect": {"lastMessageContains": "and also this"}, "text": "Second answer."},
    ])  # fmt: skip
    conv = held_conversation(tmp_path, provider)
    task = asyncio.create_task(conv.ask("answer"))
    await provider.answering.wait()
    conv.steer("and also this")
    provider.go.set()
    result = await task
    assert result.reason is TerminalReason.COMPLETED
    assert result.text == "Second answer." and result.turns == 2
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant"]
    kinds = [e.kind for e in events_of(conv)]
    assert kinds.count("user_message") == 2  # the prompt, and the person's words after it
    report = await replay_session(events_of(conv))
    assert report.same, report.describe()


def held_conversation(tmp_path: Path, provider: ScriptedProvider) -> Conversation:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.py").write_text("x = 1\n")
    store = SessionStore(tmp_path / "state")
    manager = ConversationManager(store, provider_factory=lambda settings: provider)
    return manager.open(LocalWorkspace(tmp_path / "ws"), load_settings({"model": "scripted:t"}))


async def test_words_sent_during_a_turn_follow_its_tool_results_and_replay(
    tmp_path: Path,
) -> None:
    provider = HeldModel([
        {"toolCalls": [{"id": "c1", "name": "read_file", "input": {"path": "a.py"}}]},
        {"expect": {"lastMessageContains": "use pathlib"}, "text": "Done."},
    ])  # fmt: skip
    conv = held_conversation(tmp_path, provider)
    task = asyncio.create_task(conv.ask("work"))
    await provider.answering.wait()
    steer = conv.steer("use pathlib")
    assert steer is not None and not steer.delivered
    provider.go.set()
    result = await task
    assert result.reason is TerminalReason.COMPLETED and result.turns == 2
    assert steer.delivered
    results = conv.messages[2]
    assert [type(b) for b in results.content] == [ToolResultBlock, TextBlock]
    assert results.content[1] == TextBlock("use pathlib")
    steered = [e for e in events_of(conv) if e.kind == "steered"]
    assert [(e.text, e.turn) for e in steered] == [("use pathlib", 1)]
    report = await replay_session(events_of(conv))
    assert report.same and report.calls == 1, report.describe()


async def test_a_run_that_ends_first_delivers_nothing(tmp_path: Path) -> None:
    gates = Gates()
    conv, _, _ = conversation(
        tmp_path,
        [{"toolCalls": [call("wait_read", "c1", name="g")]}],
        tools=make_tools(gates),
        settings={"maxTurns": 1},
    )
    entered, release = gates.pair("g")
    task = asyncio.create_task(conv.ask("work"))
    await entered.wait()
    steer = conv.steer("too late")
    release.set()
    result = await task
    assert result.reason is TerminalReason.MAX_TURNS
    assert steer is not None and not steer.delivered
    assert "too late" not in str(conv.messages)
    assert not [e for e in events_of(conv) if e.kind == "steered"]
    assert conv.steer("no run") is None  # nothing runs: nothing is queued


async def test_cancel_ends_the_run_at_once_with_words_waiting(tmp_path: Path) -> None:
    gates = Gates()
    conv, provider, _ = conversation(
        tmp_path, [{"toolCalls": [call("wait_read", "c1", name="g")]}], tools=make_tools(gates)
    )
    entered, _ = gates.pair("g")
    task = asyncio.create_task(conv.ask("work"))
    await entered.wait()
    steer = conv.steer("stop that")
    assert conv.cancel()
    result = await task
    assert result.reason is TerminalReason.ABORTED
    assert steer is not None and not steer.delivered and len(provider.calls) == 1
