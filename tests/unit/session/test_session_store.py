"""SessionStore: creating, reopening and listing sessions under a state dir."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.usage import Usage
from agentls.session import events as ev
from agentls.session.reader import read_events
from agentls.session.records import RunResultRecord
from agentls.session.store import SessionNotFound, SessionStore, default_state_dir, new_session_id


def finish(store: SessionStore, session_id: str, run: str, prompt: str, cost: float) -> None:
    log, _ = store.open(session_id)
    with log:
        log.append(ev.RunStarted(run=run, prompt=prompt))
        log.append(ev.UsageEvent(run=run, turn=1, usage=Usage(10, 2), cost_usd=cost))
        result = RunResult(TerminalReason.MAX_TURNS, "", Usage(10, 2), cost, 1)
        log.append(ev.RunFinished(run=run, turn=1, result=RunResultRecord.of(result)))


def test_new_ids_sort_by_time_and_are_unique() -> None:
    ids = {new_session_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", i) for i in ids)


def test_create_writes_session_started(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    session_id, log = store.create(tmp_path, "anthropic:m")
    log.close()

    path = tmp_path / "state" / "sessions" / f"{session_id}.jsonl"
    assert store.path_for(session_id) == path
    [started] = read_events(path)
    assert isinstance(started, ev.SessionStarted) and started.seq == 1
    assert started.session_id == session_id
    assert started.workspace == str(tmp_path.resolve())
    assert started.model == "anthropic:m"


def test_open_folds_state_and_continues_seq(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session_id, log = store.create(tmp_path, "m")
    log.close()
    finish(store, session_id, "r1", "first", 0.5)

    log, state = store.open(session_id)
    with log:
        assert log.append(ev.ModeChanged(mode="plan")).seq == state.last_seq + 1 == 5
    assert state.session_id == session_id
    assert [r.outcome for r in state.runs] == ["max_turns"]


def test_list_is_newest_first_filtered_by_workspace(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    ws_a, ws_b = tmp_path / "a", tmp_path / "b"
    ws_a.mkdir()
    ws_b.mkdir()
    old, log = store.create(ws_a, "m")
    log.close()
    finish(store, old, "r1", "  explain\n the   build " + "x" * 100, 0.25)
    finish(store, old, "r2", "again", 0.5)
    other, log = store.create(ws_b, "m")
    log.close()
    new, log = store.create(ws_a, "m2")
    with log:
        log.append(ev.RunStarted(run="r1", prompt="crashing"))

    assert [i.id for i in store.list()] == [new, other, old]
    newest, oldest = store.list(ws_b / ".." / "a")  # resolved before comparing
    assert (newest.id, newest.outcome, newest.runs, newest.model) == (new, "unfinished", 1, "m2")
    assert oldest.first_prompt.startswith("explain the build xxx")
    assert len(oldest.first_prompt) == 80 and oldest.first_prompt.endswith("…")
    assert (oldest.outcome, oldest.runs, oldest.cost_usd) == ("max_turns", 2, 0.75)
    assert [i.id for i in store.list(ws_b)] == [other]


def test_listing_again_reads_only_the_sessions_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentls.session import store as store_module

    store = SessionStore(tmp_path / "state")
    idle, log = store.create(tmp_path, "m")
    log.close()
    busy, busy_log = store.create(tmp_path, "m")
    read: list[str] = []

    def counted(path: Path, kinds: object = None) -> list[ev.Event]:
        read.append(path.stem)
        return read_events(path, kinds)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module, "read_events", counted)
    assert {i.id for i in store.list()} == {idle, busy}
    assert sorted(read) == sorted([idle, busy])
    read.clear()
    assert {i.id for i in store.list()} == {idle, busy}
    assert read == []  # nothing changed: nothing read
    with busy_log:
        busy_log.append(ev.RunStarted(run="r1", prompt="now running"))
    (again,) = [i for i in store.list() if i.id == busy]
    assert read == [busy] and (again.runs, again.first_prompt) == (1, "now running")


def test_list_of_an_empty_state_dir_is_empty(tmp_path: Path) -> None:
    assert SessionStore(tmp_path / "nothing").list() == []


@pytest.mark.parametrize("bad", ["", "../etc/passwd", "a/b", "x.jsonl", "é", "a b"])
def test_bad_session_ids_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="invalid session id"):
        SessionStore(tmp_path).path_for(bad)


def test_missing_session_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFound) as info:
        SessionStore(tmp_path).open("20990101-000000-abcdef")
    assert str(info.value).startswith("no session '20990101-000000-abcdef' in ")
    assert isinstance(info.value, KeyError)


def test_default_state_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTLS_STATE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_state_dir() == tmp_path / "explicit"
    monkeypatch.delenv("AGENTLS_STATE_DIR")
    assert default_state_dir() == tmp_path / "xdg" / "agentls"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_state_dir() == tmp_path / "home" / ".local" / "state" / "agentls"


def test_a_label_is_the_persons_request_without_what_the_editor_added(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    session_id, log = store.create(tmp_path, "m")
    log.close()
    finish(store, session_id, "r1", "add shout\n\n(The person is looking at greet.py.)", 0.1)
    (info,) = store.list()
    assert info.first_prompt == "add shout"
