"""Figures a benchmark reports for the summary `run_all` prints against the targets.

A benchmark run by `run_all` finds a file named in AGENTLS_BENCH_SUMMARY and adds
one JSON line to it; run on its own, it records nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

VARIABLE = "AGENTLS_BENCH_SUMMARY"


def record(bench: str, **figures: float | int | None) -> None:
    target = os.environ.get(VARIABLE)
    if target:
        with Path(target).open("a", encoding="utf-8") as out:
            out.write(json.dumps({"bench": bench, **figures}) + "\n")


def read(path: Path) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            found[row.pop("bench")] = row
    return found
