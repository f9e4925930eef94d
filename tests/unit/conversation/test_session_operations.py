"""What a face asks of a session, answered by the conversation: its model's facts, its cost,
shutdown with a grace, undo of a session only in the log."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentls.contracts.outcomes import TerminalReason
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.providers.scripted import ScriptedProvider
from agentls.session import events as ev
from agentls.session.reader import read_events
from agentls.session.store import SessionNotFound, SessionStore
from agentls.workspace.local import LocalWorkspace

from ..helpers import Gates, call, conversation, make_tools

USAGE = {"input_tokens": 1000, "output_tokens": 100}


async def test_the_session_knows_its_models_facts_and_its_cost_over_runs_and_reopening(
    tmp_path: Path,
) -> None:
    conv, _, _ = conversation(tmp_path, [{"text": "one", "usage": USAGE}, {"text": "two"}])
    assert conv.model_id == "scripted:script"
    assert conv.context_window > 0
    assert not conv.shows_cost  # a scripted model's price is nominal
    first = await conv.ask("first")
    second = await conv.ask("second")
    assert first.cost_usd is not None and first.cost_usd > 0
    assert conv.cost_usd == pytest.approx(first.cost_usd + (second.cost_usd or 0.0))
    logged = [e.cost_usd for e in read_events(conv.log.path) if isinstance(e, ev.UsageEvent)]
    conv.close()
    provider = ScriptedProvider([{"text": "again"}])
    manager = ConversationManager(
        SessionStore(tmp_path / "state"), provider_factory=lambda s: provider
    )
    settings = load_settings({"model": "scripted:test"})
    reopened = manager.open(LocalWorkspace(tmp_path / "ws"), settings, conv.session_id)
    assert reopened.cost_usd == pytest.approx(sum(c or 0.0 for c in logged))
    manager.close()


async def test_shutdown_aborts_a_running_run_and_lets_it_write_its_end(tmp_path: Path) -> None:
    gates = Gates()
    turns = [{"toolCalls": [call("wait_read", "c1", name="held")]}, {"text": "never"}]
    conv, _, manager = conversation(tmp_path, turns, tools=make_tools(gates))
    handle = await conv.start("hold")
    entered, _ = gates.pair("held")
    await asyncio.wait_for(entered.wait(), 30)
    await manager.shutdown(grace_seconds=30)
    assert handle.task.done()
    assert (await handle.task).reason is TerminalReason.ABORTED
    ends = [e for e in read_events(conv.log.path) if isinstance(e, ev.RunFinished)]
    assert [e.result.terminal_reason for e in ends] == ["aborted"]
    assert manager.open_conversations() == []


async def test_undo_of_a_session_the_state_folder_lacks_says_so(tmp_path: Path) -> None:
    manager = ConversationManager(SessionStore(tmp_path / "state"))
    with pytest.raises(SessionNotFound, match=r"^no session '20990101-000000-abcdef' in "):
        await manager.undo("20990101-000000-abcdef", None, target_for=LocalWorkspace)
