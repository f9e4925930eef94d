"""list_files and search on a generated 50,000-file tree, against running ripgrep directly.

python -m tests.bench.bench_search [--files 50000]
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

from agentls.workspace.local import LocalWorkspace


def make_tree(root: Path, files: int) -> None:
    (root / ".gitignore").write_text("build/\n*.log\n")
    for index in range(files):
        folder = root / f"src{index // 1000:02d}" / f"pkg{index // 100 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        body = f"def function_{index}():\n    return {index}\n"
        if index % 997 == 0:
            body += "# NEEDLE marker\n"
        (folder / f"mod_{index:05d}.py").write_text(body)
    (root / "build").mkdir()
    for index in range(500):
        (root / "build" / f"gen_{index}.py").write_text("# NEEDLE in ignored output\n")


def timed(fn, reps: int = 3) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(reps):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50_000)
    files = parser.parse_args().files
    rg = shutil.which("rg")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, files)
        fast = LocalWorkspace(root, use_ripgrep=True)
        slow = LocalWorkspace(root, use_ripgrep=False)

        def agentls(workspace: LocalWorkspace, what: str) -> float:
            if what == "list":
                return timed(lambda: asyncio.run(workspace.list_files(".", None, 100_000)))
            return timed(lambda: asyncio.run(workspace.search("NEEDLE", ".", None, 1_000)))

        rows = []
        for what, args in (("list_files", ["--files"]), ("search NEEDLE", ["-n", "NEEDLE"])):
            kind = "list" if what == "list_files" else "search"
            direct = (
                timed(
                    lambda a=args: subprocess.run(
                        [rg, *a],
                        cwd=root,  # type: ignore[list-item]
                        capture_output=True,
                    )
                )
                if rg
                else None
            )
            rows.append((what, agentls(fast, kind) if rg else None, agentls(slow, kind), direct))
    print(f"# {files:,} files (plus 500 ignored), 2 cores")
    print()
    print(
        "| operation | agentls (ripgrep) | agentls (Python fallback) | rg directly | agentls/rg |"
    )
    print("|---|---|---|---|---|")
    for what, fast_s, slow_s, direct in rows:
        ratio = f"{fast_s / direct:.2f}x" if fast_s and direct else "n/a"
        fast_text = f"{fast_s * 1000:.0f} ms" if fast_s else "no rg"
        direct_text = f"{direct * 1000:.0f} ms" if direct else "no rg"
        print(f"| {what} | {fast_text} | {slow_s * 1000:.0f} ms | {direct_text} | {ratio} |")


if __name__ == "__main__":
    main()
