"""Checkpoints in synthetic 10,000- and 100,000-file git repositories: what each kind
of turn adds for its snapshots (through the real Checkpointer, file watcher on), and
undoing a turn.

    python -m tests.bench.bench_undo [--files 10000 100000] [--reps 5]

Targets: under 20 ms median per turn at 10,000 files, under 100 ms at 100,000;
a turn of reads only costs nothing; an undo under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from agentls.checkpoints.gitstore import GitStore
from agentls.contracts.tooling import ToolIntent
from agentls.conversation.checkpointing import Checkpointer, CheckpointSettings
from agentls.conversation.undo import undo_turn
from agentls.runtime.registry import ToolRegistry
from agentls.session.store import SessionStore
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace
from tests.bench import summary

# Never a detached `git gc --auto` still writing when the folder is removed.
GIT = ["git", "-c", "gc.auto=0", "-c", "gc.autoDetach=false", "-c", "maintenance.auto=false",
       "-c", "user.email=b@e", "-c", "user.name=B"]  # fmt: skip
KINDS = ("reads only", "an edit", "a command")


def make_repo(root: Path, files: int) -> None:
    for index in range(files):
        folder = root / f"pkg{index // 500:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"module_{index:06d}.py").write_text(f"VALUE_{index} = {index}\n" * 5)
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "bench"], cwd=root, check=True)


def intent(number: int, name: str, **params: Any) -> ToolIntent:
    return ToolIntent(call_id=f"call-{number}-{name}", name=name, input=params)


class Session:
    def __init__(self, state: Path, root: Path) -> None:
        self.root = root
        self.sessions = SessionStore(state)
        self.session_id, self.log = self.sessions.create(root, "scripted:bench")
        self.workspace = LocalWorkspace(root)
        self.context = ToolContext(self.workspace)
        self.checkpointer = Checkpointer(
            session_id=self.session_id,
            store=GitStore(state, root),
            session_log=self.log,
            workspace=self.workspace,
            registry=ToolRegistry(BUILTIN_TOOLS),
            context=self.context,
            settings=CheckpointSettings(),
        )

    async def turn(self, number: int, kind: str) -> float:
        """Seconds the checkpointer adds to one turn (the tool's own work not counted)."""
        target = f"pkg{number % 20:03d}/module_{(number % 20) * 500:06d}.py"
        if kind == "reads only":
            intents = [intent(number, "read_file", path=target)]
        elif kind == "an edit":
            intents = [intent(number, "edit_file", path=target, old_text="x", new_text="y")]
        else:
            intents = [intent(number, "run_command", command="make things")]
        t0 = time.perf_counter()
        await self.checkpointer.before_act("run", number, intents)
        spent = time.perf_counter() - t0
        if kind == "an edit":
            version = await self.workspace.version(target)
            await self.workspace.write(
                target, f"CHANGED = {time.time_ns()}\n", expected_version=version, create=False
            )
            self.context.reads[target] = await self.workspace.version(target) or ""
        elif kind == "a command":
            (self.root / f"made_{number}.txt").write_text("by a command\n")
        t1 = time.perf_counter()
        await self.checkpointer.after_act("run", number)
        spent += time.perf_counter() - t1
        await self.model_thinks()
        return spent

    async def model_thinks(self) -> None:
        """The pause while the model answers: the watcher reports what the turn wrote."""
        await asyncio.sleep(0.15)

    async def undo(self) -> float:
        t0 = time.perf_counter()
        result = await undo_turn(
            self.checkpointer.store.git_dir.parent.parent, self.log.path, self.root,
            self.workspace, log=self.log,
        )  # fmt: skip
        assert result.done, result
        return time.perf_counter() - t0

    async def close(self) -> None:
        await self.checkpointer.close()
        self.log.close()


async def measure(files: int, reps: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="agentls-bench-undo-"))
    try:
        root = tmp / "repo"
        root.mkdir()
        t0 = time.perf_counter()
        make_repo(root, files)
        setup = time.perf_counter() - t0
        session = Session(tmp / "state", root)
        first = await session.turn(0, "an edit")  # a first snapshot looks at every file
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        number = 1
        for _ in range(reps):
            for kind in KINDS:
                times[kind].append(await session.turn(number, kind))
                number += 1
        undo = await session.undo()
        await session.close()
        every = [value for values in times.values() for value in values]
        medians = {kind: statistics.median(values) for kind, values in times.items()}
        return {"files": files, "setup": setup, "first": first, "undo": undo,
                "all": statistics.median(every), **medians}  # fmt: skip
    finally:
        shutil.rmtree(tmp)


def report(rows: list[dict[str, Any]]) -> str:
    ms = "{:.1f} ms".format
    lines = [
        "| files | first turn | turn with reads only | with an edit | with a command "
        "| median, all turns | undo of the last turn |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['files']:,} | {ms(row['first'] * 1000)} | {ms(row['reads only'] * 1000)} "
            f"| {ms(row['an edit'] * 1000)} | {ms(row['a command'] * 1000)} "
            f"| {ms(row['all'] * 1000)} | {ms(row['undo'] * 1000)} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    rows = [asyncio.run(measure(files, args.reps)) for files in args.files]
    for row in rows:
        summary.record(f"checkpoints {row['files']}", median_ms=row["all"] * 1000,
                       first_ms=row["first"] * 1000, undo_ms=row["undo"] * 1000)  # fmt: skip
    print("Snapshot time a turn adds, by what the turn does (medians; the model's pause "
          "between turns simulated):\n")  # fmt: skip
    print(report(rows))
    print()
    print("Targets: under 20 ms per turn at 10,000 files and under 100 ms at 100,000 "
          "(median of all turns); reads only: nothing; undo under 1 s.")  # fmt: skip


if __name__ == "__main__":
    main()
