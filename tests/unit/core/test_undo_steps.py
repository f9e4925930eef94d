"""Undoing several turns at once: each file back to before the first turn that changed it,
and a change made between those turns stops the whole undo."""

from __future__ import annotations

from pathlib import Path

from agentls.checkpoints.gitstore import GitStore
from agentls.checkpoints.undo import CurrentReader, plan_undo_steps


def reader(root: Path) -> CurrentReader:
    async def current(path: str) -> bytes | None:
        file = root / path
        return file.read_bytes() if file.exists() else None

    return current


async def two_turns(
    tmp_path: Path, between: str | None = None
) -> tuple[Path, GitStore, list[tuple[str, str]]]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    store = GitStore(tmp_path / "state", root)
    before1 = await store.snapshot("s/1/before")
    (root / "a.txt").write_text("two\n")
    after1 = await store.snapshot("s/1/after")
    if between is not None:
        (root / "a.txt").write_text(between)
    before2 = await store.snapshot("s/2/before")
    (root / "a.txt").write_text("three\n")
    (root / "made.txt").write_text("made\n")
    after2 = await store.snapshot("s/2/after")
    return root, store, [(before1, after1), (before2, after2)]


async def test_each_file_goes_back_to_before_the_first_turn(tmp_path: Path) -> None:
    root, store, steps = await two_turns(tmp_path)
    plan = await plan_undo_steps(store, steps, reader(root))
    assert plan.possible
    assert {(r.path, r.content) for r in plan.restores} == {
        ("a.txt", b"one\n"),
        ("made.txt", None),
    }


async def test_a_change_between_the_turns_is_a_conflict(tmp_path: Path) -> None:
    root, store, steps = await two_turns(tmp_path, between="the person's\n")
    plan = await plan_undo_steps(store, steps, reader(root))
    assert not plan.possible and plan.conflicts == ["a.txt"]


async def test_a_change_after_the_last_turn_is_a_conflict(tmp_path: Path) -> None:
    root, store, steps = await two_turns(tmp_path)
    (root / "made.txt").write_text("edited since\n")
    plan = await plan_undo_steps(store, steps, reader(root))
    assert plan.conflicts == ["made.txt"]
