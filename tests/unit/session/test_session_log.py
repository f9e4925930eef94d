"""SessionLog writes and read_events reads back, tolerating crash damage."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

import pytest

from agentls.contracts.decisions import Verdict
from agentls.contracts.usage import Usage
from agentls.session import events as ev
from agentls.session.events import SCHEMA_VERSION
from agentls.session.log import SessionLog
from agentls.session.reader import SessionFormatError, read_events


def mode(name: str) -> ev.ModeChanged:
    return ev.ModeChanged(mode=name)


def modes(path: Path) -> list[str]:
    return [e.mode for e in read_events(path) if isinstance(e, ev.ModeChanged)]


def test_append_stamps_the_event_and_it_reads_back_identically(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        first = log.append(ev.RunStarted(run="r1", prompt="héllo ✓", settings={"mode": "plan"}))
        second = log.append(ev.UsageEvent(run="r1", turn=1, usage=Usage(3), cost_usd=None))

    assert first.v == SCHEMA_VERSION
    assert (first.seq, second.seq) == (1, 2)
    assert first.kind == "run_started" and first.run == "r1" and first.turn is None
    assert read_events(path) == [first, second]


def test_lines_put_the_envelope_first_and_name_payload_fields_in_camel_case(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(ev.Decision(run="r", turn=2, call_id="c", verdict=Verdict.ALLOW, source="rule"))
    line = json.loads(path.read_text())
    assert list(line)[:6] == ["v", "seq", "ts", "kind", "run", "turn"]
    assert line["kind"] == "decision" and line["callId"] == "c" and line["answer"] is None


def test_each_append_reaches_the_file_before_close(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = SessionLog(path)
    log.append(mode("plan"))
    assert modes(path) == ["plan"]
    log.close()


def test_values_json_cannot_encode_are_stringified_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    circular: dict[str, object] = {}
    circular["self"] = circular
    with SessionLog(path) as log:
        log.append(ev.ToolIntent(call_id="a", name="x", input={"where": Path("/a/b")},
                                 summary="\udc80"))  # fmt: skip
        log.append(ev.ToolIntent(call_id="b", name="y", input={"data": circular}))

    (first,) = read_events(path)  # the second line keeps its envelope and a note only
    assert isinstance(first, ev.ToolIntent)
    assert first.input["where"] == "/a/b" and first.summary == "\udc80"
    second = json.loads(path.read_text().splitlines()[1])
    assert second["seq"] == 2 and "unserialisable" in second


def test_torn_last_line_is_skipped_silently(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(mode("a"))
        log.append(mode("b"))
    with path.open("ab") as f:
        f.write(b'{"v":2,"seq":3,"ts":1.0,"kind":"mode_changed","pay')

    with caplog.at_level(logging.WARNING):
        assert modes(path) == ["a", "b"]
    assert caplog.records == []


def test_corrupt_middle_line_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    good = '{"v":2,"seq":%d,"ts":1.0,"kind":"mode_changed","run":null,"turn":null,"mode":"m"}\n'
    wrong = '{"v":2,"seq":5,"ts":1.0,"kind":"mode_changed","run":null,"turn":null}\n'
    path.write_text(good % 1 + "{not json\n" + "[1,2]\n" + good % 4 + wrong, encoding="utf-8")

    with caplog.at_level(logging.WARNING):
        events = read_events(path)
    assert [e.seq for e in events] == [1, 4]
    assert len(caplog.records) == 3
    assert "line 2" in caplog.records[0].getMessage()


def test_kinds_this_agentls_does_not_know_are_skipped_quietly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(mode("a"))
    with path.open("a") as f:
        f.write('{"v":2,"seq":2,"ts":1.0,"kind":"from_the_future","run":null,"turn":null}\n')
        f.write('{"v":1,"seq":3,"ts":1.0,"kind":"older_unknown","run":null,"turn":null}\n')
    with SessionLog(path) as log:
        log.append(mode("b"))

    with caplog.at_level(logging.WARNING):
        assert [e.seq for e in read_events(path)] == [1, 4]
    assert caplog.records == []


def test_future_schema_version_is_refused_naming_file_and_version(tmp_path: Path) -> None:
    path = tmp_path / "future.jsonl"
    path.write_text(json.dumps({"v": SCHEMA_VERSION + 1, "seq": 1, "kind": "k"}) + "\n")

    with pytest.raises(SessionFormatError) as info:
        read_events(path)
    assert "future.jsonl" in str(info.value)
    assert f"version {SCHEMA_VERSION + 1}" in str(info.value)


def test_seq_continues_after_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        for _ in range(3):
            log.append(mode("a"))
    with SessionLog(path) as log:
        assert log.append(mode("b")).seq == 4

    assert [e.seq for e in read_events(path)] == [1, 2, 3, 4]


def test_reopen_after_a_torn_line_keeps_new_events_intact(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(mode("a"))
    with path.open("ab") as f:
        f.write(b'{"v":2,"seq":2,"kin')
    with SessionLog(path) as log:
        log.append(mode("b"))

    assert [e.seq for e in read_events(path)] == [1, 2]
    assert modes(path) == ["a", "b"]


def test_write_errors_are_counted_and_reported_once_never_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    log = SessionLog(path)
    log.append(mode("ok"))
    fd = log.fileno()
    assert fd is not None
    # Swap a read-only descriptor in under the log: every write now fails with EBADF.
    read_only = os.open(path, os.O_RDONLY)
    os.dup2(read_only, fd)
    os.close(read_only)

    with caplog.at_level(logging.WARNING):
        event = log.append(mode("lost"))
        log.append(mode("lost"))
        log.turn_boundary()
        log.close()
        log.append(mode("after close"))
        log.close()

    assert event.mode == "lost" and event.seq == 2
    assert log.errors == 3
    assert log.last_error.startswith("append")
    assert len(caplog.records) == 1
    assert modes(path) == ["ok"]


def test_unopenable_path_is_an_error_count_not_an_exception(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    log = SessionLog(blocker / "sessions" / "s.jsonl")  # a file cannot hold a directory

    assert log.append(mode("x")).seq == 1
    log.turn_boundary()
    log.close()
    assert log.errors == 2
    assert log.last_error.startswith("append")


def test_turn_boundary_fsyncs_off_the_callers_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = threading.Event()
    release = threading.Event()
    calls: list[str] = []
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        calls.append(threading.current_thread().name)
        started.set()
        release.wait(timeout=10)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    path = tmp_path / "s.jsonl"
    log = SessionLog(path)
    log.append(mode("a"))
    log.turn_boundary()
    assert started.wait(timeout=10)
    log.append(mode("b"))  # appends do not wait for the disk
    log.turn_boundary()
    assert modes(path) == ["a", "b"]
    release.set()
    log.close()

    main = threading.current_thread().name
    assert calls[0] != main  # the background fsync
    assert calls[-1] == main  # close() syncs before returning


def test_one_fsync_thread_serves_every_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: dict[int, threading.Event] = {}
    threads: set[int] = set()
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        threads.add(threading.get_ident())
        real_fsync(fd)
        synced.setdefault(fd, threading.Event()).set()

    monkeypatch.setattr(os, "fsync", recording_fsync)
    logs = [SessionLog(tmp_path / f"s{i}.jsonl") for i in range(3)]
    for log in logs:
        fd = log.fileno()
        assert fd is not None
        synced[fd] = threading.Event()
        log.append(mode("a"))
        log.turn_boundary()
    for event in list(synced.values()):
        assert event.wait(timeout=10)
    assert len(threads) == 1 and threading.get_ident() not in threads
    for log in logs:
        log.close()


def test_a_log_in_a_folder_not_made_yet_makes_the_folder(tmp_path: Path) -> None:
    path = tmp_path / "state" / "sessions" / "s.jsonl"
    with SessionLog(path) as log:
        log.append(mode("plan"))
    assert modes(path) == ["plan"] and log.errors == 0
