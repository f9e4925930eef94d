"""One writer per session: the lock file, and conversations of one session in two managers
(as two processes would hold them) taking turns on one consistent log."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentls.conversation.manager import ConversationManager, SessionBusy
from agentls.conversation.settings import load_settings
from agentls.providers.scripted import ScriptedProvider
from agentls.session.events import RunStarted
from agentls.session.lock import SessionClaim, SessionHeld, read_holder
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace

from .helpers import Gates, call, conversation, make_tools


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
        second.start("meanwhile")
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
