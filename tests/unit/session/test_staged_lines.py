"""Staged lines: written with the next append, when the event loop next runs, or at close;
never out of order, never left in memory while the run waits."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agentls.session import events as ev
from agentls.session.log import SessionLog
from agentls.session.reader import read_events


def mode(name: str) -> ev.ModeChanged:
    return ev.ModeChanged(mode=name)


def on_disk(path: Path) -> list[str]:
    return [e.mode for e in read_events(path) if isinstance(e, ev.ModeChanged)]


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every os.write the log makes, in order."""
    seen: list[bytes] = []
    real_write = os.write

    def recording_write(fd: int, data: bytes) -> int:
        seen.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", recording_write)
    return seen


def test_staged_lines_go_out_with_the_next_append_in_one_write(
    tmp_path: Path, writes: list[bytes]
) -> None:
    path = tmp_path / "s.jsonl"

    async def turn() -> list[str]:
        with SessionLog(path) as log:
            log.stage(mode("usage"))
            log.stage(mode("output"))
            seen_before = on_disk(path)
            log.append(mode("decision"))
            return seen_before

    assert asyncio.run(turn()) == []  # nothing on disk until the append
    assert on_disk(path) == ["usage", "output", "decision"]
    assert len(writes) == 1 and writes[0].count(b"\n") == 3
    assert [e.seq for e in read_events(path)] == [1, 2, 3]


def test_staged_lines_are_written_as_soon_as_the_run_waits(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"

    async def turn() -> tuple[list[str], list[str]]:
        with SessionLog(path) as log:
            log.stage(mode("observation"))
            before = on_disk(path)
            await asyncio.sleep(0)  # the run waits: the loop runs something else
            return before, on_disk(path)

    before, after_waiting = asyncio.run(turn())
    assert before == [] and after_waiting == ["observation"]


def test_a_staged_line_outside_an_event_loop_is_written_at_once(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.stage(mode("a"))
        assert on_disk(path) == ["a"]


def test_close_writes_what_is_staged_and_flush_writes_it_now(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"

    async def staged_then(action: str) -> list[str]:
        log = SessionLog(path)
        log.stage(mode(action))
        if action == "flush":
            log.flush()
            seen = on_disk(path)
            log.close()
            return seen
        log.close()
        return on_disk(path)

    assert asyncio.run(staged_then("close")) == ["close"]
    assert asyncio.run(staged_then("flush")) == ["close", "flush"]


def test_a_second_event_loop_still_writes_what_is_staged(tmp_path: Path) -> None:
    """A loop that ended with a flush still pending must not strand the next lines."""
    path = tmp_path / "s.jsonl"
    log = SessionLog(path)

    async def stage_and_end(name: str) -> None:
        log.stage(mode(name))

    asyncio.run(stage_and_end("first"))  # its loop ran the flush before closing

    async def stage_and_wait(name: str) -> list[str]:
        log.stage(mode(name))
        await asyncio.sleep(0)
        return on_disk(path)

    assert asyncio.run(stage_and_wait("second")) == ["first", "second"]
    log.close()
