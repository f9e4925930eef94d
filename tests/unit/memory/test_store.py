"""The memory store: records with their provenance, scopes, expiry, staleness, a project
kept by its remote, and a store that does not load left as it is."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from agentls.memory.prompt_text import render_memories
from agentls.memory.store import MemoryStore, MemoryStoreError, project_key

NOW = datetime.datetime(2026, 12, 1, 12, tzinfo=datetime.UTC)


def _git(root: Path, url: str) -> None:
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text(
        f'[core]\n\tbare = false\n[remote "origin"]\n\turl = {url}\n\tfetch = x\n'
    )


def test_add_list_forget_across_scopes(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "state", tmp_path / "ws")
    mine = store.add("I like short answers", scope="user", source="explicit_user_rule",
                     confidence="high", now=NOW)  # fmt: skip
    theirs = store.add("pnpm, never npm", scope="project", source="agent_summary",
                       confidence="low", session="s1", evidence=("toolu_1",), now=NOW)  # fmt: skip
    loaded = store.load(NOW)
    assert [r.id for r in loaded.records] == [mine.id, theirs.id]
    assert loaded.records[1].session == "s1" and loaded.records[1].evidence == ("toolu_1",)
    other = MemoryStore(tmp_path / "state", tmp_path / "elsewhere")
    assert [r.id for r in other.load(NOW).records] == [mine.id]  # the person's, everywhere
    assert store.forget(theirs.id) is not None and store.forget(theirs.id) is None
    assert not any(p.is_relative_to(tmp_path / "ws") for p in store.paths.values())


def test_expired_memories_are_not_loaded_and_stale_ones_are_marked(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "state", tmp_path / "ws")
    store.add("short-lived", scope="project", source="explicit_user_rule", confidence="high",
              expires_days=1, now=NOW)  # fmt: skip
    old = store.add("old news", scope="project", source="agent_summary", confidence="low",
                    now=NOW - datetime.timedelta(days=40))  # fmt: skip
    later = NOW + datetime.timedelta(days=2)
    assert [r.id for r in store.load(later).records] == [old.id]
    text = render_memories(store.load(later).records, later)
    assert "agent_summary, confidence low, 42 days old, possibly stale" in text


def test_a_project_with_a_remote_keeps_its_memory_when_moved(tmp_path: Path) -> None:
    first, moved = tmp_path / "a" / "clone", tmp_path / "b" / "clone"
    _git(first, "git@example.com:team/app.git")
    _git(moved, "git@example.com:team/app")
    assert project_key(first) == project_key(moved)
    assert project_key(tmp_path / "a") != project_key(tmp_path / "b")


def test_a_store_that_does_not_load_is_said_and_never_written_over(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "state", tmp_path / "ws")
    store.paths["user"].parent.mkdir(parents=True)
    store.paths["user"].write_text('{"records": [{"id": 1}]}')
    kept = store.add("still works", scope="project", source="explicit_user_rule",
                     confidence="high", now=NOW)  # fmt: skip
    loaded = store.load(NOW)
    assert [r.id for r in loaded.records] == [kept.id]
    assert "user.json does not load" in loaded.warnings[0]
    with pytest.raises(MemoryStoreError):
        store.add("lost?", scope="user", source="explicit_user_rule", confidence="high")
    assert store.paths["user"].read_text() == '{"records": [{"id": 1}]}'


def test_bad_input_is_refused(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "state", tmp_path / "ws")
    for text, days in (("  ", None), ("x" * 2001, None), ("ok", 0)):
        with pytest.raises(ValueError):
            store.add(text, scope="user", source="explicit_user_rule", confidence="high",
                      expires_days=days)  # fmt: skip
    assert not store.folder.exists() or not store.paths["user"].exists()
