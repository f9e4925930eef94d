"""Bounded waits keep every cancellation: `contracts.waiting.within`, and no
`asyncio.wait_for` in the server (Python 3.11's drops a cancellation that arrives as the
awaited thing finishes, so a cancelled run could go on)."""

from __future__ import annotations

import ast
import asyncio
import threading
from pathlib import Path

import pytest

from agentls.contracts.waiting import to_its_end, within

SERVER = Path(__file__).resolve().parents[2] / "server"


async def test_a_cancellation_as_the_awaited_thing_finishes_is_kept() -> None:
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(within(asyncio.shield(done), 30))
    await asyncio.sleep(0)  # waiting now
    done.set_result(1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_a_wait_ends_with_its_result_or_at_its_limit() -> None:
    event = asyncio.Event()
    with pytest.raises(TimeoutError):
        await within(event.wait(), 0.01)
    event.set()
    assert await within(event.wait(), 30) is True
    assert await within(asyncio.sleep(0, "unbounded"), None) == "unbounded"


async def test_a_cancelled_caller_waits_for_its_thread_to_end() -> None:
    entered, release, ended = threading.Event(), threading.Event(), []

    def work() -> None:
        entered.set()
        release.wait(30)
        ended.append(True)

    calling = asyncio.ensure_future(to_its_end(work))
    assert await asyncio.to_thread(entered.wait, 30)
    calling.cancel()
    await asyncio.sleep(0)
    assert not calling.done()  # the thread still runs: so does the caller
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await calling
    assert ended == [True]


def test_the_server_never_uses_asyncio_wait_for() -> None:
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (
                isinstance(node, ast.Attribute)
                and node.attr == "wait_for"
                and isinstance(node.value, ast.Name)
                and node.value.id == "asyncio"
            ) or (
                isinstance(node, ast.ImportFrom)
                and node.module == "asyncio"
                and any(alias.name == "wait_for" for alias in node.names)
            )
            if named:
                found.append(f"{path.relative_to(SERVER)}:{node.lineno}")
    assert found == [], "use agentls.contracts.waiting.within instead"
