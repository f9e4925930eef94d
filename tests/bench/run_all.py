"""Runs the benchmarks in fresh processes and prints one table.

    make bench          (or: python -m tests.bench.run_all [--reps 5])

Rows: agentls's loop (event log on) and, when ../shared/bench/peers is beside
the checkout, the hand-written asyncio baseline measured in the same run, so
the figures compare as ratios on this (shared, noisy) machine. A last line gives
the context projection's own cost per turn, early and at 1,000 turns
(tests/bench/bench_context.py prints its full table).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT.parent / "shared" / "bench" / "peers"
NS = (50, 500)


def _run(cmd: list[str], cwd: Path) -> dict[str, float]:
    out = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def agentls_row(n: int, processes: int) -> tuple[float, float]:
    cells = [
        _run([sys.executable, "-m", "tests.bench.bench_loop", "--n", str(n), "--reps", "3"], ROOT)
        for _ in range(processes)
    ]
    return (
        statistics.median(c["us_per_turn"] for c in cells),
        statistics.median(c["cpu_us_per_turn"] for c in cells),
    )


def baseline_row(n: int, processes: int) -> tuple[float, float] | None:
    script = PEERS / "bench_baseline.py"
    if not script.exists():
        return None
    cells = [
        _run([sys.executable, str(script), "--n", str(n), "--reps", "3"], PEERS)
        for _ in range(processes)
    ]
    turns = n + 1
    return (
        statistics.median(statistics.median(c["times_s"]) / turns * 1e6 for c in cells),
        statistics.median(statistics.median(c["cpu_s"]) / turns * 1e6 for c in cells),
    )


def context_line() -> str:
    cell = _run([sys.executable, "-m", "tests.bench.bench_context", "--json"], ROOT)
    return (
        f"Context projection alone (bench_context, 200k window): {cell['us_first']:.1f} us/turn "
        f"at turn {cell['first_turn']:.0f}, {cell['us_last']:.1f} us/turn at turn "
        f"{cell['last_turn']:,.0f}: flat, as each message is measured and elided once."
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=5)
    args = parser.parse_args()
    rows = {"agentls (log on)": [agentls_row(n, args.processes) for n in NS]}
    base = [baseline_row(n, args.processes) for n in NS]
    if all(b is not None for b in base):
        rows["baseline (peers' hand-written loop)"] = [b for b in base if b is not None]
    print(f"# loop overhead per turn — {platform.python_version()}, {os.cpu_count()} cores, "
          f"loadavg {' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    print()
    print(
        "| loop | us/turn N=50 | us/turn N=500 | growth 500/50 "
        "| cpu us/turn N=50 | cpu us/turn N=500 |"
    )
    print("|---|---|---|---|---|---|")
    for name, ((w50, c50), (w500, c500)) in rows.items():
        print(f"| {name} | {w50:.0f} | {w500:.0f} | {w500 / w50:.2f}x | {c50:.0f} | {c500:.0f} |")
    print()
    print(
        "Peers on this kind of machine (../shared/bench/peers/README.md): 0.5-8 ms per turn "
        "at N=50, most growing with N. Target for agentls: under 100 us per turn, flat in N."
    )
    print()
    print(context_line())
    print()
    undo = [sys.executable, "-m", "tests.bench.bench_undo", "--reps", "3"]
    print(subprocess.run(undo, cwd=ROOT, check=True, capture_output=True, text=True).stdout)


if __name__ == "__main__":
    main()
