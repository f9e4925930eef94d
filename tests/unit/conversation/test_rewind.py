"""A rewind of an open conversation: the history and the projection follow at once, the
lock is the session's as for a run, and a fork of a running session waits for its end."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentls.conversation.one_session import SessionBusy
from agentls.conversation.rewind import RewindRefused
from agentls.session import events as ev
from agentls.session.lock import SessionHeld
from agentls.session.reader import read_events
from tests.unit.helpers import Gates, call, conversation, make_tools, one_session_twice


async def test_the_next_ask_after_a_rewind_sees_the_history_before_it(tmp_path: Path) -> None:
    turns = [{"text": f"answer {n}"} for n in range(1, 5)]
    conv, provider, manager = conversation(tmp_path, turns)
    for prompt in ("one", "two", "three"):
        await conv.ask(prompt)
    assert provider.calls[-1].message_count == 5  # one, answer, two, answer, three

    result = await conv.rewind(2)
    assert (result.asks, result.prompts, result.files) == ([2, 3], ["two", "three"], True)
    assert [m.text for m in conv.messages] == ["one", "answer 1"]
    await conv.ask("four")
    assert provider.calls[-1].message_count == 3  # one, answer, four
    assert [r.rewound for r in await conv.asks()] == [False, True, True, False]
    logged = [e for e in read_events(conv.log.path) if isinstance(e, ev.Rewound)]
    assert [(e.ask, e.runs) for e in logged] == [(2, result.runs)]
    manager.close()


async def test_a_dry_run_changes_nothing_and_a_bad_ask_is_refused(tmp_path: Path) -> None:
    conv, _, manager = conversation(tmp_path, [{"text": "a"}, {"text": "b"}])
    await conv.ask("one")
    await conv.ask("two")
    log = conv.log.path.read_bytes()
    preview = await conv.rewind(2, dry_run=True)
    assert preview.dry_run and preview.asks == [2]
    assert "rewinding to before ask 2 would take back ask 2 “two”" in preview.describe()
    assert conv.log.path.read_bytes() == log and len(conv.messages) == 4
    with pytest.raises(RewindRefused, match=r"no ask 3 in this session \(asks 1–2\)"):
        await conv.rewind(3)
    with pytest.raises(RewindRefused, match="no ask of this session ran as run-nope"):
        await conv.rewind("run-nope")
    with pytest.raises(RewindRefused, match="no file changed since ask 1 began"):
        await conv.rewind(1, conversation=False)
    assert conv.log.path.read_bytes() == log
    manager.close()


async def test_a_rewind_waits_for_no_run_and_is_refused_while_one_goes(tmp_path: Path) -> None:
    gates = Gates()
    turns = [{"text": "first"}, {"toolCalls": [call("wait_read", "c1", name="held")]},
             {"text": "never"}]  # fmt: skip
    conv, _, manager = conversation(tmp_path, turns, tools=make_tools(gates))
    await conv.ask("one")
    handle = await conv.start("hold")
    entered, _ = gates.pair("held")
    await asyncio.wait_for(entered.wait(), 30)
    with pytest.raises(SessionBusy, match="is running"):
        await conv.rewind(1)
    with pytest.raises(SessionBusy, match="has a run going"):
        await manager.fork(conv.session_id)
    fork = await manager.fork(conv.session_id, 2)  # what came before ask 2 is settled
    assert [r.prompt for r in (await manager.asks(fork))] == ["one"]
    handle.cancel()
    await handle.result()
    manager.close()


async def test_a_rewind_of_a_session_another_process_runs_names_it(tmp_path: Path) -> None:
    first, second, _ = one_session_twice(tmp_path, ["second done"])
    await first.ask("first")
    async with first.claimed():  # held, as a run or an undo in another process holds it
        with pytest.raises(SessionBusy, match=r"is running elsewhere \(`agentls ask`, pid \d+"):
            await second.rewind(1)
        with pytest.raises(SessionHeld, match=r"`agentls ask`, pid \d+"):
            await second_manager_fork(second.session_id, tmp_path)
    result = await second.rewind(1)
    assert result.asks == [1] and second.messages == []
    first.close()
    second.close()


async def second_manager_fork(session_id: str, tmp_path: Path) -> str:
    from agentls.conversation.forking import fork_stored
    from agentls.session.store import SessionStore

    return await fork_stored(SessionStore(tmp_path / "state"), session_id, None, face="cli")


async def test_a_rewound_session_replays_exactly_and_the_replay_sees_the_rewind(
    tmp_path: Path,
) -> None:
    from agentls.conversation.run_replay import replay_session

    turns = [{"text": f"answer {n}"} for n in range(1, 5)]
    conv, _, manager = conversation(tmp_path, turns)
    for prompt in ("one", "two", "three"):
        await conv.ask(prompt)
    await conv.rewind(2)
    await conv.ask("four")
    events = read_events(conv.log.path)
    manager.close()
    report = await replay_session(events)
    assert report.same and report.runs == 4, report.describe()
    # Without its rewind the log folds to another history, and the replay says so.
    forgotten = await replay_session([e for e in events if not isinstance(e, ev.Rewound)])
    assert forgotten.divergence is not None
    assert forgotten.divergence.what == "messages sent in model request 1"
    assert (forgotten.divergence.recorded, forgotten.divergence.replayed) == (3, 7)
