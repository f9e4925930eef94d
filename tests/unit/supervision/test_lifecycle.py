"""One child's lifecycle with a fake child: started on first need by one launch shared by
every waiter, restarted once after a crash, then given up on; failures and stops."""

from __future__ import annotations

import asyncio

import pytest

from agentls.supervision import ChildFailed
from tests.unit.supervision.fakes import FakeChild


async def test_nothing_starts_before_the_first_need() -> None:
    child = FakeChild()
    assert child.launches == 0 and child.lifecycle.state == "stopped"
    await child.lifecycle.ensure()
    assert child.launches == 1 and child.lifecycle.running and child.events == ["started"]
    await child.lifecycle.ensure()  # running: nothing more
    assert child.launches == 1


async def test_one_launch_serves_every_waiter_and_a_cancelled_one_does_not_stop_it() -> None:
    child = FakeChild()
    child.hold = asyncio.Event()
    waiters = [asyncio.create_task(child.lifecycle.ensure()) for _ in range(3)]
    await child.launched.wait()
    assert child.launches == 1 and child.lifecycle.state == "starting"
    waiters[0].cancel()
    await asyncio.wait([waiters[0]])
    child.hold.set()
    await asyncio.gather(*waiters[1:])
    assert waiters[0].cancelled() and child.launches == 1 and child.lifecycle.running


async def test_a_crash_restarts_once_then_the_child_is_given_up_until_reset() -> None:
    child = FakeChild()
    await child.lifecycle.ensure()
    child.crash()
    assert child.lifecycle.state == "stopped" and child.lifecycle.restarts == 1
    await child.lifecycle.ensure()  # the restart left
    assert child.launches == 2 and child.lifecycle.running
    child.crash()
    status = child.lifecycle.status()
    assert status.state == "failed" and status.failure == "fake crashed again while idle"
    with pytest.raises(ChildFailed, match="fake crashed again while idle"):
        await child.lifecycle.ensure()
    assert child.launches == 2  # given up: no third start
    assert child.events == ["started", "restarting", "started", "given up"]
    child.lifecycle.reset()
    await child.lifecycle.ensure()
    assert child.launches == 3 and child.lifecycle.restarts == 0


async def test_a_crash_nobody_reported_is_seen_at_the_next_need() -> None:
    child = FakeChild()
    await child.lifecycle.ensure()
    child.crash(said=False)
    assert child.lifecycle.status().state == "stopped"  # it died without a word
    await child.lifecycle.ensure()
    assert child.launches == 2 and child.lifecycle.restarts == 1


async def test_a_report_about_an_earlier_launch_changes_nothing() -> None:
    child = FakeChild()
    await child.lifecycle.ensure()
    earlier = child.lifecycle.generation
    child.crash()
    await child.lifecycle.ensure()
    child.lifecycle.lost(earlier, "while idle")  # the first process's end, told late
    assert child.lifecycle.running and child.lifecycle.restarts == 1


async def test_a_failed_launch_says_why_is_cleaned_up_and_is_not_retried() -> None:
    child = FakeChild()
    child.failure = "fake could not start: no such command"
    with pytest.raises(ChildFailed, match="no such command"):
        await child.lifecycle.ensure()
    assert child.lifecycle.status().state == "failed" and child.halts == 1
    assert child.told == [("start failed", "fake could not start: no such command")]
    with pytest.raises(ChildFailed, match="no such command"):
        await child.lifecycle.ensure()
    assert child.launches == 1


async def test_stopping_while_it_starts_cancels_the_launch() -> None:
    child = FakeChild()
    child.hold = asyncio.Event()  # never set: a handshake that never ends
    waiter = asyncio.create_task(child.lifecycle.ensure())
    await child.launched.wait()
    await child.lifecycle.stop()
    with pytest.raises(ChildFailed, match="stopped while starting"):
        await waiter
    assert child.lifecycle.state == "stopped" and child.halts == 1
    child.hold = None
    await child.lifecycle.ensure()  # a stopped child starts again on the next need
    assert child.launches == 2 and child.lifecycle.running
