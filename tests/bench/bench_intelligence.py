"""Language intelligence: edit -> problems in the observation, with warm real servers.

    python -m tests.bench.bench_intelligence [--files 200] [--reps 30]

A 200-file Python project (basedpyright, ruff) and a 200-file TypeScript project
(typescript-language-server from tests/e2e/intelligence/node). Each rep edits one
file through the Workspace, alternately breaking and fixing a type, and times the
after-edit hook: the baseline taken before the edit, and the check of the edited
version that yields the note (target p50 under 1 s). Also: the start-up cost, paid
by the first edit only (no server runs before), and the servers' memory (RSS of
their process trees).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agentls.contracts.tooling import Risk, ToolIntent
from agentls.intelligence.after_edits import ProblemsAfterEdits
from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.intelligence.languages import Languages
from agentls.workspace.local import LocalWorkspace

ROOT = Path(__file__).resolve().parents[2]
NODE_BIN = ROOT / "tests" / "e2e" / "intelligence" / "node" / "node_modules" / ".bin"


def python_project(root: Path, files: int) -> tuple[str, str, str]:
    (root / "pyproject.toml").write_text("[project]\nname = 'bench'\nversion = '0'\n")
    (root / "mod_0000.py").write_text("def value_0000(n: int) -> int:\n    return n\n")
    for i in range(1, files):
        prev = f"{i - 1:04d}"
        (root / f"mod_{i:04d}.py").write_text(
            f"from mod_{prev} import value_{prev}\n\n\n"
            f"def value_{i:04d}(n: int) -> int:\n    return value_{prev}(n) + 1\n"
        )
    last = f"{files - 1:04d}"
    good = f"    return value_{files - 2:04d}(n) + 1\n"
    return f"mod_{last}.py", good, good.replace("(n) + 1", "(n) + 'one'")


def ts_project(root: Path, files: int) -> tuple[str, str, str]:
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    (root / "m0000.ts").write_text("export function v0000(n: number): number {\n  return n;\n}\n")
    for i in range(1, files):
        prev = f"{i - 1:04d}"
        (root / f"m{i:04d}.ts").write_text(
            f"import {{ v{prev} }} from './m{prev}';\n\n"
            f"export function v{i:04d}(n: number): number {{\n  return v{prev}(n) + 1;\n}}\n"
        )
    good = f"  return v{files - 2:04d}(n) + 1;\n"
    return f"m{files - 1:04d}.ts", good, good.replace("(n) + 1;", "(n) + 'one';")


def tree_rss_kib(pid: int) -> int:
    """RSS of a process and its descendants (the servers start node children)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += children.get(current, [])
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


async def measure(
    name: str, make: object, files: int, reps: int, servers: dict[str, LanguageServerConfig | None]
) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path, good, bad = make(root, files)  # type: ignore[operator]
        workspace = LocalWorkspace(root)
        languages = Languages()
        hub = languages.hub
        intelligence = languages.attach(workspace, servers, ProblemsSettings(settle_seconds=30))
        events: list[object] = []
        hook = ProblemsAfterEdits(intelligence, lambda _: Risk.WRITE, events.append)
        started_before_need = len(hub.connections)
        timings: list[tuple[float, float]] = []
        first: tuple[float, float] | None = None
        for rep in range(reps + 1):
            text = (root / path).read_text()
            old, new = (good, bad) if rep % 2 == 0 else (bad, good)
            intent = ToolIntent(f"c{rep}", "edit_file", {"path": path})
            t0 = time.perf_counter()
            await hook.before_act("run", rep, [intent])
            t1 = time.perf_counter()
            await workspace.write(path, text.replace(old, new), expected_version=None, create=False)
            t2 = time.perf_counter()
            notes = await hook.after_act("run", rep)
            t3 = time.perf_counter()
            if rep > 0 and bool(notes) != (rep % 2 == 0):  # rep 0 starts the servers
                raise SystemExit(f"{name}: rep {rep}: expected a note only after breaking edits")
            if rep == 0:
                first = (t1 - t0, t3 - t2)
            else:
                timings.append((t1 - t0, t3 - t2))
        rss = sum(tree_rss_kib(c.pid) for c in hub.connections.values() if c.pid) // 1024
        await hub.aclose()
    assert first is not None
    after = sorted(t[1] for t in timings)
    before = sorted(t[0] for t in timings)
    return {
        "name": name,
        "p50": statistics.median(after),
        "p99": after[min(len(after) - 1, round(0.99 * (len(after) - 1)))],
        "baseline_p50": statistics.median(before),
        "first": first[0] + first[1],
        "rss": rss,
        "idle": started_before_need,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    os.environ["PATH"] = os.pathsep.join(
        [str(Path(sys.executable).parent), str(NODE_BIN), os.environ.get("PATH", "")]
    )
    only_python: dict[str, LanguageServerConfig | None] = {"typescript": None}
    only_ts: dict[str, LanguageServerConfig | None] = {
        "basedpyright": None, "pyright": None, "ruff": None,
    }  # fmt: skip
    rows = [
        asyncio.run(measure("Python (basedpyright + ruff)", python_project, args.files,
                            args.reps, only_python)),
        asyncio.run(measure("TypeScript (typescript-language-server)", ts_project, args.files,
                            args.reps, only_ts)),
    ]  # fmt: skip
    print(
        f"{args.files}-file projects, {args.reps} edits each (alternately breaking and fixing a "
        "type), warm servers; the note's check waits for the edited version's verdict.\n"
    )
    print(
        "| project | edit → problems p50 | p99 | baseline before the edit p50 "
        "| first edit (starts the servers) | servers' RSS | servers before first need |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['name']} | {row['p50'] * 1000:.0f} ms | {row['p99'] * 1000:.0f} ms "  # type: ignore[operator]
            f"| {row['baseline_p50'] * 1000:.0f} ms | {row['first']:.2f} s "  # type: ignore[operator]
            f"| {row['rss']} MiB | {row['idle']} |"
        )


if __name__ == "__main__":
    main()
