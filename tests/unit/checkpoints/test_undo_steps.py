"""Undoing several turns at once: each file back to before the first turn that changed it,
a change made between those turns stops the whole undo, and a path a link leads out of
the workspace is refused while the rest is restored."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentls.checkpoints.gitstore import GitStore
from agentls.checkpoints.undo import CurrentReader, plan_undo_steps
from agentls.contracts.tooling import ToolError
from agentls.workspace.local import LocalWorkspace


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


async def test_a_folder_replaced_by_a_link_out_is_refused_and_the_rest_restored(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("one\n")
    (root / "top.txt").write_text("one\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("outside\n")
    store = GitStore(tmp_path / "state", root)
    before = await store.snapshot("s/1/before")
    (root / "top.txt").write_text("two\n")
    shutil.rmtree(root / "sub")
    (root / "sub").symlink_to(outside)
    after = await store.snapshot("s/1/after")
    workspace = LocalWorkspace(root)
    plan = await plan_undo_steps(store, [(before, after)], workspace.current_bytes)
    assert plan.possible and plan.refused == ["sub", "sub/a.txt"]
    assert [(r.path, r.content) for r in plan.restores] == [("top.txt", b"one\n")]


async def test_restoring_through_a_link_out_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "top.txt").write_text("two\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "sub").symlink_to(outside)
    workspace = LocalWorkspace(root)
    with pytest.raises(ToolError):
        await workspace.restore_files([("top.txt", b"one\n"), ("sub/a.txt", b"written\n")])
    assert (root / "top.txt").read_text() == "two\n" and list(outside.iterdir()) == []
