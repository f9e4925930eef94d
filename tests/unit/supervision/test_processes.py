"""A session's table of background processes with a fake launcher: ids in order, the
limit refused before anything starts, output kept until read and bounded, every start,
exit and stop told."""

from __future__ import annotations

import asyncio

import pytest

from agentls.contracts.processes import CallRef, ProcessChange
from agentls.supervision.processes import (
    OutputSink,
    ProcessTable,
    TooManyProcesses,
    UnknownProcess,
)


class FakeProcess:
    """A launched process the test writes for; it ends when stopped, with code -15."""

    def __init__(self, sink: OutputSink) -> None:
        self.sink = sink
        self.pending = b""  # in its pipe, not taken in yet
        self.stops = 0
        self.killed = False

    def drain(self) -> None:
        data, self.pending = self.pending, b""
        self.sink.write(data)

    async def stop(self) -> None:
        self.stops += 1
        self.sink.exited(-15)

    def kill(self) -> None:
        self.killed = True


class Launcher:
    def __init__(self) -> None:
        self.started: list[FakeProcess] = []

    async def __call__(self, sink: OutputSink) -> FakeProcess:
        process = FakeProcess(sink)
        self.started.append(process)
        return process


def table_with_changes(**kwargs: int) -> tuple[ProcessTable, list[ProcessChange]]:
    table = ProcessTable(**kwargs)
    changes: list[ProcessChange] = []
    table.watch(changes.append)
    return table, changes


ORIGIN = CallRef(run_id="run-1", turn=2, call_id="toolu_1")


async def test_ids_go_in_order_and_each_start_is_told() -> None:
    table, changes = table_with_changes()
    launch = Launcher()
    first = await table.start("serve", ORIGIN, "session", launch)
    second = await table.start("watch", ORIGIN, "session", launch)
    assert (first.id, second.id) == ("p1", "p2")
    assert [(c.action, c.process.id, c.process.state) for c in changes] == [
        ("started", "p1", "running"), ("started", "p2", "running"),
    ]  # fmt: skip
    assert changes[0].process.origin == ORIGIN and changes[0].process.command == "serve"


async def test_ids_go_on_after_those_the_log_used() -> None:
    table = ProcessTable()
    table.skip_to(4)
    table.skip_to(2)  # never back
    assert (await table.start("x", ORIGIN, "session", Launcher())).id == "p5"


async def test_the_limit_is_refused_before_anything_starts() -> None:
    table = ProcessTable(limit=2)
    launch = Launcher()
    await table.start("a", ORIGIN, "session", launch)
    await table.start("b", ORIGIN, "session", launch)
    with pytest.raises(TooManyProcesses, match="maxBackgroundProcesses: 2"):
        await table.start("c", ORIGIN, "session", launch)
    assert len(launch.started) == 2
    await table.stop("p1", "model")  # an ended one leaves room
    assert (await table.start("c", ORIGIN, "session", launch)).id == "p3"


async def test_a_read_gives_what_came_since_the_last_one_including_the_pipe_now() -> None:
    table = ProcessTable()
    launch = Launcher()
    await table.start("serve", ORIGIN, "session", launch)
    process = launch.started[0]
    process.sink.write(b"one\n")
    process.pending = b"two\n"  # written, not yet taken in: a read takes it
    assert (await table.read("p1")).output == "one\ntwo\n"
    assert (await table.read("p1")).output == ""


async def test_a_read_waits_for_output_when_there_is_none_yet() -> None:
    table = ProcessTable()
    launch = Launcher()
    await table.start("serve", ORIGIN, "session", launch)
    reading = asyncio.create_task(table.read("p1", wait_seconds=30))
    await asyncio.sleep(0)
    assert not reading.done()
    launch.started[0].sink.write(b"ready\n")
    assert (await reading).output == "ready\n"


async def test_a_read_waits_no_longer_than_asked() -> None:
    table = ProcessTable()
    await table.start("serve", ORIGIN, "session", Launcher())
    read = await table.read("p1", wait_seconds=0.01)
    assert read.output == "" and read.process.state == "running"


async def test_unread_output_is_bounded_and_what_was_dropped_is_counted() -> None:
    table = ProcessTable(kept_bytes=10)
    launch = Launcher()
    await table.start("noisy", ORIGIN, "session", launch)
    launch.started[0].sink.write(b"0123456789abcdef")
    read = await table.read("p1")
    assert (read.output, read.dropped) == ("6789abcdef", 6)
    assert (await table.read("p1")).dropped == 0


async def test_a_character_cut_between_two_writes_comes_whole() -> None:
    table = ProcessTable()
    launch = Launcher()
    await table.start("x", ORIGIN, "session", launch)
    sink = launch.started[0].sink
    sink.write("é".encode()[:1])
    assert (await table.read("p1")).output == ""
    sink.write("é".encode()[1:])
    assert (await table.read("p1")).output == "é"


async def test_an_exit_is_told_once_and_its_code_kept() -> None:
    table, changes = table_with_changes()
    launch = Launcher()
    await table.start("build", ORIGIN, "session", launch)
    launch.started[0].sink.write(b"done\n")
    launch.started[0].sink.exited(0)
    launch.started[0].sink.exited(1)  # told once
    assert [c.action for c in changes] == ["started", "exited"]
    read = await table.read("p1")
    assert (read.output, read.process.state, read.process.exit_code) == ("done\n", "exited", 0)
    assert table.running() == []


async def test_a_stop_says_who_stopped_it_and_an_ended_one_is_not_stopped_again() -> None:
    table, changes = table_with_changes()
    launch = Launcher()
    await table.start("serve", ORIGIN, "session", launch)
    read = await table.stop("p1", "person")
    assert read.process.state == "stopped" and read.process.exit_code == -15
    assert (changes[-1].action, changes[-1].by) == ("stopped", "person")
    await table.stop("p1", "model")
    assert launch.started[0].stops == 1 and len(changes) == 2


async def test_stop_all_stops_those_picked_and_says_which() -> None:
    table = ProcessTable()
    launch = Launcher()
    await table.start("a", CallRef(run_id="r1"), "session", launch)
    await table.start("b", CallRef(run_id="r2"), "session", launch)
    stopped = await table.stop_all("undo", lambda p: p.origin.run_id == "r2")
    assert [p.id for p in stopped] == ["p2"]
    assert [p.state for p in table.processes()] == ["running", "stopped"]


async def test_kill_all_ends_the_running_ones_without_a_loop_call() -> None:
    table = ProcessTable()
    launch = Launcher()
    await table.start("a", ORIGIN, "session", launch)
    await table.start("b", ORIGIN, "session", launch)
    launch.started[1].sink.exited(0)
    table.kill_all()
    assert [p.killed for p in launch.started] == [True, False]


async def test_an_unknown_id_says_which_the_session_has() -> None:
    table = ProcessTable()
    await table.start("a", ORIGIN, "session", Launcher())
    with pytest.raises(UnknownProcess, match=r"p7.*its: p1"):
        await table.read("p7")


async def test_a_launch_that_fails_leaves_no_process_and_no_slot() -> None:
    table, changes = table_with_changes(limit=1)

    async def broken(sink: OutputSink) -> FakeProcess:
        raise OSError("no such shell")

    with pytest.raises(OSError):
        await table.start("x", ORIGIN, "session", broken)
    assert table.processes() == [] and changes == []
    assert (await table.start("y", ORIGIN, "session", Launcher())).id == "p1"
