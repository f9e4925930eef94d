"""One writer per session: the lock file, and conversations of one session in two managers
(as two processes would hold them) taking turns on one consistent log."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from agentls.conversation.one_session import SessionBusy
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.providers.scripted import ScriptedProvider
from agentls.session.events import RunStarted
from agentls.session.lock import SessionClaim, SessionHeld, read_holder
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace
from tests.unit.helpers import Gates, call, conversation, make_tools, one_session_twice


def test_a_second_claim_is_refused_and_names_the_holder(tmp_path: Path) -> None:
    log = tmp_path / "s1.jsonl"
    first, second = SessionClaim(log, "lsp"), SessionClaim(log, "cli")
    with first:
        holder = read_holder(first.path)
        assert holder is not None and (holder.face, holder.pid) == ("lsp", os.getpid())
        with pytest.raises(SessionHeld) as refused:
            second.acquire()
        assert f"(the language server, pid {os.getpid()}, since " in str(refused.value)
        assert not second.held
    second.acquire()  # free once released
    second.release()
    assert read_holder(first.path) is None


def test_an_open_claim_takes_and_drops_the_lock_run_after_run(tmp_path: Path) -> None:
    log = tmp_path / "s1.jsonl"
    log.with_suffix(".lock").write_text(" " * 300 + "left by an older holder")
    mine, other = SessionClaim(log, "lsp"), SessionClaim(log, "cli")
    mine.prepare()
    try:
        for _ in range(3):  # one file, kept open: each run takes the lock and lets it go
            mine.acquire()
            holder = read_holder(mine.path)
            assert holder is not None and holder.face == "lsp"
            with pytest.raises(SessionHeld, match="the language server"):
                other.acquire()
            mine.release()
            assert read_holder(mine.path) is None
            other.acquire()  # free in between, for another process too
            with pytest.raises(SessionHeld, match="`agentls ask`"):
                mine.acquire()
            other.release()
    finally:
        mine.close()
        other.close()
    assert read_holder(log.with_suffix(".lock")) is None


def test_a_dead_holder_leaves_the_session_free(tmp_path: Path) -> None:
    log = tmp_path / "s1.jsonl"
    hold = (
        "import sys, time\nfrom pathlib import Path\n"
        "from agentls.session.lock import SessionClaim\n"
        "SessionClaim(Path(sys.argv[1]), 'acp').acquire()\nprint('held', flush=True)\n"
        "time.sleep(600)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(log)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(SessionHeld, match=rf"\(the ACP agent, pid {holder.pid}, since "):
            SessionClaim(log, "cli").acquire()
    finally:
        holder.kill()  # kill -9: no chance to release
        holder.wait()
    with SessionClaim(log, "cli") as claim:
        assert claim.held


async def test_two_managers_take_turns_on_one_session(tmp_path: Path) -> None:
    gates = Gates()
    turns = [
        {"toolCalls": [call("wait_read", "c1", name="g")]},
        {"text": "first done"},
        {"text": "second done"},
    ]
    first, _, _ = conversation(tmp_path, turns, tools=make_tools(gates))
    session_id = first.session_id
    # The same session opened by another manager, as another process would.
    provider = ScriptedProvider([{"text": "second done"}])
    other = ConversationManager(
        SessionStore(tmp_path / "state"), provider_factory=lambda s: provider, face="acp"
    )
    settings = load_settings({"model": "scripted:test"})
    second = other.open(LocalWorkspace(tmp_path / "ws"), settings, session_id)

    entered, release = gates.pair("g")
    running = asyncio.create_task(first.ask("first"))
    await entered.wait()
    with pytest.raises(SessionBusy, match="is running elsewhere \\(`agentls ask`, pid"):
        await second.start("meanwhile")
    release.set()
    assert (await running).text == "first done"

    result = await second.ask("second")  # catches up with what the first wrote
    assert result.text == "second done"
    # The first ask's four messages (prompt, tool call, result, answer), then this prompt.
    assert provider.calls[0].message_count == 5
    events = read_events(second.log.path)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [e.prompt for e in events if isinstance(e, RunStarted)] == ["first", "second"]
    first.close()
    second.close()


async def test_a_start_cancelled_while_catching_up_lets_the_session_go(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from agentls.conversation import one_session as manager

    first, second, provider = one_session_twice(tmp_path, ["second done"])
    assert (await first.ask("first")).text == "first done"  # the second is now behind
    entered, release = threading.Event(), threading.Event()
    real_read = manager.read_events

    def held_read(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        release.wait(30)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(manager, "read_events", held_read)
    starting = asyncio.ensure_future(second.start("second"))
    assert await asyncio.to_thread(entered.wait, 30)
    starting.cancel()
    # Still reading, holding the lock: no run starts here or in the other process.
    with pytest.raises(SessionBusy, match="already has a run going"):
        await second.start("meanwhile")
    with pytest.raises(SessionBusy, match="running elsewhere"):
        await first.start("meanwhile")
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await starting  # once the read is done
    assert read_holder(second.log.path.with_suffix(".lock")) is None
    monkeypatch.setattr(manager, "read_events", real_read)
    assert (await second.ask("second")).text == "second done"
    assert provider.calls[0].message_count == 3  # caught up: the first ask, then this prompt
    first.close()
    second.close()


async def test_a_mode_change_between_runs_is_logged_after_another_process_wrote(
    tmp_path: Path,
) -> None:
    from agentls.permissions.modes import Mode
    from agentls.session.events import ModeChanged

    first, second, provider = one_session_twice(tmp_path, ["second done"])
    assert (await first.ask("first")).text == "first done"
    second.set_mode(Mode.PLAN)  # behind: takes the lock, reads only the last line
    assert (await second.ask("second")).text == "second done"
    assert provider.calls[0].message_count == 3  # the next run still caught up
    events = read_events(second.log.path)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = [e.kind for e in events]
    assert kinds.index("mode_changed") < kinds.index("run_started", kinds.index("run_finished"))
    assert [e.mode for e in events if isinstance(e, ModeChanged)] == ["plan"]
    first.close()
    second.close()
