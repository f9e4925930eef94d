"""The private checkpoint store: snapshots, changes, and pruning by count and age."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agentls.checkpoints.gitstore import REF_PREFIX, GitStore


async def test_snapshots_changes_overlays_and_pruning(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    store = GitStore(tmp_path / "state", root)
    first = await store.snapshot("s/1/before")
    (root / "a.txt").write_text("two\n")
    (root / "b.txt").write_text("new\n")
    second = await store.snapshot("s/1/after", overlays={"c.txt": "only in a buffer\n"})
    changes = {(c.path, c.status) for c in await store.changes(first, second)}
    assert changes == {("a.txt", "M"), ("b.txt", "A"), ("c.txt", "A")}
    assert await store.read(first, "a.txt") == b"one\n"
    assert await store.read(first, "b.txt") is None
    assert await store.read(second, "c.txt") == b"only in a buffer\n"
    for number in range(2, 7):
        await store.snapshot(f"s/{number}/before")
    assert await store.prune(keep=3, max_age_days=30) == 4
    refs = (await store.git("for-each-ref", "--format=%(refname)", REF_PREFIX)).split()
    assert len(refs) == 3
    assert await store.prune(keep=100, max_age_days=0) == 3  # older than "now - 0 days"
    assert not (root / ".git").exists()  # nothing was written into the workspace


async def test_a_git_workspace_lends_its_objects(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "big.txt").write_text("x" * 100_000)
    run = ["git", "-c", "user.email=p@e", "-c", "user.name=P"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*run, "add", "-A"], cwd=root, check=True)
    subprocess.run([*run, "commit", "-qm", "x"], cwd=root, check=True)
    store = GitStore(tmp_path / "state", root)
    await store.snapshot("s/1/before")
    alternates = store.git_dir / "objects" / "info" / "alternates"
    assert alternates.read_text().strip() == str((root / ".git" / "objects").resolve())
    own = subprocess.run(["du", "-sk", str(store.git_dir / "objects")], capture_output=True,
                         text=True, check=True).stdout.split()[0]  # fmt: skip
    assert int(own) < 60  # the 100 KB blob is borrowed, not copied
