"""Checkpoints in a 10,000-file repository: the cost of a turn's two snapshots, and
of undoing that turn (target: under 1 s).

    python -m tests.bench.bench_undo [--files 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agentls.checkpoints.gitstore import GitStore
from agentls.conversation.undo import undo_turn
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace


def make_repo(root: Path, files: int) -> None:
    for index in range(files):
        folder = root / f"pkg{index // 500:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"module_{index:05d}.py").write_text(f"VALUE_{index} = {index}\n" * 20)
    run = ["git", "-c", "user.email=b@e", "-c", "user.name=B"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*run, "add", "-A"], cwd=root, check=True)
    subprocess.run([*run, "commit", "-qm", "bench"], cwd=root, check=True)


async def one_turn(state: Path, root: Path, number: int) -> tuple[float, float]:
    """(snapshot seconds for before+after, undo seconds)."""
    store = GitStore(state, root)
    sessions = SessionStore(state)
    session_id, log = sessions.create(root, "scripted:bench")
    target = root / "pkg000" / "module_00000.py"
    t0 = time.perf_counter()
    before = await store.snapshot(f"{session_id}/1/before")
    target.write_text(f"CHANGED = {number}\n")
    (root / f"made_{number}.txt").write_text("by a command\n")
    after = await store.snapshot(f"{session_id}/1/after")
    snap = time.perf_counter() - t0
    changes = await store.changes(before, after)
    log.append("checkpoint", run="r", turn=1, number=1, before=before, after=after,
               changed=[{"path": c.path, "status": c.status} for c in changes])  # fmt: skip
    t1 = time.perf_counter()
    result = await undo_turn(state, log.path, root, LocalWorkspace(root), log=log)
    undo = time.perf_counter() - t1
    log.close()
    assert result.done and result.restored == ["pkg000/module_00000.py"], result
    return snap, undo


async def main_async(files: int, reps: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        t0 = time.perf_counter()
        make_repo(root, files)
        setup = time.perf_counter() - t0
        state = Path(tmp) / "state"
        first = await one_turn(state, root, 0)  # the first snapshot hashes every file
        runs = [await one_turn(state, root, n) for n in range(1, reps + 1)]
    snaps, undos = [r[0] for r in runs], [r[1] for r in runs]
    print(f"# checkpoints in a {files:,}-file git repository (setup {setup:.1f} s)")
    print()
    print("| measure | first turn | median of later turns |")
    print("|---|---|---|")
    print(f"| before + after snapshots | {first[0] * 1000:.0f} ms | "
          f"{statistics.median(snaps) * 1000:.0f} ms |")  # fmt: skip
    print(f"| undo of the turn | {first[1] * 1000:.0f} ms | "
          f"{statistics.median(undos) * 1000:.0f} ms |")  # fmt: skip
    print()
    print("Target: undo of one turn under 1 s.")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main_async(args.files, args.reps))


if __name__ == "__main__":
    main()
