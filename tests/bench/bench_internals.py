"""Minimal-hunk edits on 20,000-line files, and the session log: append cost per
event and resuming a 10,000-event session.

    python -m tests.bench.bench_internals
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agentls.contracts.decisions import Verdict
from agentls.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentls.session import events as ev
from agentls.session.store import SessionStore
from agentls.workspace.hunks import line_hunks


def per_call(fn: Callable[[], object], reps: int) -> float:
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(reps):
            fn()
        samples.append((time.perf_counter() - started) / reps)
    return statistics.median(samples)


def hunk_rows() -> list[tuple[str, str]]:
    rng = random.Random(1)
    old = "".join(f"value_{i} = compute({i}, {i * 7})\n" for i in range(20_000))
    one = old.replace("value_12345 = ", "value_12345 = 1 + ", 1)
    lines = old.splitlines(keepends=True)
    for index in rng.sample(range(len(lines)), 100):
        lines[index] = lines[index].replace("compute", "recompute")
    scattered = "".join(lines)
    rewritten = old.replace("compute", "calculate")
    return [
        (
            "one-line change in 20,000 lines",
            f"{per_call(lambda: line_hunks(old, one), 20) * 1e3:.1f} ms",
        ),
        (
            "100 scattered changes",
            f"{per_call(lambda: line_hunks(old, scattered), 5) * 1e3:.1f} ms",
        ),
        ("every line changed", f"{per_call(lambda: line_hunks(old, rewritten), 3) * 1e3:.1f} ms"),
    ]


def log_rows() -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp))
        _, log = store.create(Path(tmp), "scripted:bench")
        small = per_call(
            lambda: log.append(
                ev.Decision(
                    run="r", turn=1, call_id="c", verdict=Verdict.ALLOW, source="reads are allowed"
                )
            ),
            2000,
        )
        body = "x" * 2048
        big = per_call(
            lambda: log.append(
                ev.ObservationEvent(
                    run="r", turn=1, call_id="c", name="read_file", ok=True, content=body
                )
            ),
            2000,
        )
        log.close()
        session_id, log = store.create(Path(tmp), "scripted:bench")
        log.append(ev.RunStarted(run="r", prompt="long session"))
        for turn in range(2_500):
            use = ToolUseBlock(f"t{turn}", "read_file", {"path": f"src/m{turn}.py"})
            output = Message("assistant", (TextBlock("ok"), use))
            log.append(ev.ModelOutput(run="r", turn=turn, message=output))
            log.append(
                ev.Decision(run="r", turn=turn, call_id=use.id, verdict=Verdict.ALLOW, source="s")
            )
            log.append(
                ev.ObservationEvent(
                    run="r", turn=turn, call_id=use.id, name="read_file", ok=True, content="y" * 500
                )
            )
            results = Message("user", (ToolResultBlock(use.id, "y" * 500),))
            log.append(ev.ToolResults(run="r", turn=turn, message=results))
        log.close()
        started = time.perf_counter()
        opened, state = store.open(session_id)
        resume = time.perf_counter() - started
        opened.close()
    assert len(state.messages) == 5_000
    return [
        ("append a small event (write + flush)", f"{small * 1e6:.1f} us"),
        ("append a 2 KB observation", f"{big * 1e6:.1f} us"),
        ("resume a 10,000-event session (read + rebuild)", f"{resume * 1e3:.0f} ms"),
    ]


def main() -> None:
    print("| measure | time |")
    print("|---|---|")
    for name, value in [*hunk_rows(), *log_rows()]:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
