"""What one sandbox per session costs a short command: `true` run the way a session runs
it (joining the session's sandbox with nsenter, in a bwrap of its own with its control
files read-only) against a sandbox of its own per command (what every command got
before), and without any sandbox; each through the workspace as run_command calls it,
the walk for control files included. Also the session sandbox's own start, paid once.

    python -m tests.bench.bench_session_sandbox [--reps 30] [--files 2000]

Target: the session's sandbox adds at most 10 ms to a command against a sandbox of its
own (median), and starts in under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from agentls.workspace import process, sandbox
from agentls.workspace.interface import CommandGrant
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.sandbox import SandboxSettings
from tests.bench import summary

TRUE = CommandGrant("true", "true")
TARGET_ADDED_MS = 10.0
TARGET_START_MS = 100.0


def make_workspace(root: Path, files: int) -> None:
    """A repository with `files` files in folders of 100, a nested one among them."""
    for index in range(files):
        folder = root / f"pkg{index // 100:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{index:05d}.py").write_text(f"X = {index}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "init", "-q"], cwd=root / "pkg000", check=True)


async def timed(run: Callable[[], Awaitable[object]], reps: int) -> list[float]:
    await run()  # warm: caches, the first walk
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        await run()
        times.append((time.perf_counter() - start) * 1000)
    return times


async def starts(root: Path, reps: int) -> list[float]:
    """The session's sandbox made ready for a first command, in fresh sessions (the
    workspace walk for control files is warm: what the start alone costs)."""
    times = []
    for _ in range(reps):
        fresh = LocalWorkspace(root)
        path = sandbox.command_environment(fresh.sandbox, os.environ).get("PATH", "")
        begun = time.perf_counter()
        prefix = await fresh.processes.sandbox.prefix(
            root, fresh.sandbox, path, control_writable=False
        )
        times.append((time.perf_counter() - begun) * 1000)
        assert prefix is not None, fresh.processes.sandbox.problem
        await fresh.end_commands()
    return times


async def measure(root: Path, reps: int) -> dict[str, list[float]]:
    session = LocalWorkspace(root)
    alone = LocalWorkspace(root)

    async def in_own_sandbox() -> object:
        env, prefix = await asyncio.to_thread(alone._command_setup)
        assert prefix is not None
        return await process.run_shell("true", root, 30, 1000, prefix, env, launchers=2)

    bare = LocalWorkspace(root, sandbox=SandboxSettings(enabled=False))
    rows = {
        "a sandbox of its own (before)": await timed(in_own_sandbox, reps),
        "the session's sandbox": await timed(lambda: session.run_command(TRUE, 30, 1000), reps),
        "no sandbox": await timed(lambda: bare.run_command(TRUE, 30, 1000), reps),
    }
    await session.end_commands()
    rows["the session's sandbox starting (once a session)"] = await starts(root, max(reps // 3, 3))
    return rows


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


def report(rows: dict[str, list[float]]) -> tuple[str, float, float]:
    lines = ["| `true`, run as | median ms | p90 ms |", "|---|---|---|"]
    for name, times in rows.items():
        lines.append(f"| {name} | {statistics.median(times):.1f} | {p90(times):.1f} |")
    own = statistics.median(rows["a sandbox of its own (before)"])
    shared = statistics.median(rows["the session's sandbox"])
    start = statistics.median(rows["the session's sandbox starting (once a session)"])
    return "\n".join(lines), shared - own, start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()
    problem = sandbox.bwrap_problem()
    if problem is not None:
        sys.exit(f"no sandbox here: {problem}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        make_workspace(root, args.files)
        rows = asyncio.run(measure(root, args.reps))
    table, added, start = report(rows)
    summary.record("session sandbox", added_ms=added, start_ms=start)
    print(f"A workspace of {args.files:,} files with two repositories; {args.reps} runs each.\n")
    print(table)
    print()
    print(
        f"The session's sandbox adds {added:+.1f} ms to a command against a sandbox of its "
        f"own (target: at most {TARGET_ADDED_MS:g} ms), and starts in {start:.0f} ms once "
        f"per session (target: under {TARGET_START_MS:g} ms)."
    )


if __name__ == "__main__":
    main()
