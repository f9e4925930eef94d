"""kill -9 at random points of 50 runs: the log stays readable, nothing acknowledged is lost.

Each run is `agentls ask` with the scripted model and the real tools (listing,
reading, searching, writing, a command with a child process, an edit), killed
with SIGKILL right after the k-th line of its session log appears, k drawn at
random (seeded) between 1 and the length of a whole run's log. Afterwards:

- every line that was complete before the kill is still in the file, byte for
  byte and in order, and agentls reads the log back (a torn last line at most);
- `agentls show` prints the session;
- `agentls ask --session ID` resumes it: the interrupted run is closed
  (`run_closed`), dangling tool calls get a result, seqs continue without a gap,
  the rebuilt history is well formed and the new run completes.
"""

from __future__ import annotations

import collections
import os
import random
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agentls.session.events import RunClosed, RunFinished
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from tests.e2e.conftest import Cli
from tests.helpers import wait_until, write_script
from tests.processes import processes_with
from tests.reliability.conftest import Figures
from tests.reliability.sessions import check_history, check_log, complete_lines

RUNS = 50
SEED = 20261
MARKER = "agentls-kill9-cmd"


def script_turns(delay: float) -> list[dict[str, Any]]:
    command = f"python3 b.py && sleep 0.1 # {MARKER}"
    calls: list[list[dict[str, Any]]] = [
        [{"name": "list_files", "input": {}}],
        [
            {"name": "read_file", "input": {"path": "a.py"}},
            {"name": "search", "input": {"pattern": "def "}},
        ],
        [{"name": "write_file", "input": {"path": "b.py", "content": "print('b')\n"}}],
        [{"name": "run_command", "input": {"command": command}}],
        [{"name": "read_file", "input": {"path": "b.py"}}],
        [{"name": "edit_file", "input": {"path": "b.py", "old_text": "'b'", "new_text": "'bb'"}}],
    ]
    turns: list[dict[str, Any]] = [
        {"text": f"Step {n}.", "toolCalls": c, "delaySeconds": delay} for n, c in enumerate(calls)
    ]
    return [*turns, {"text": "All done.", "delaySeconds": delay}]


def new_cli(base: Path) -> Cli:
    workspace = base / "project"
    workspace.mkdir(parents=True)
    (workspace / "a.py").write_text("def a():\n    return 1\n")
    return Cli(base / "state", workspace)


def run_and_kill(cli: Cli, model: str, k: int) -> dict[str, Any]:
    """Start a run, kill -9 it once its log has k complete lines; what was seen."""
    proc = cli.popen("ask", "do the steps", "--model", model, "--yes")
    seen = b""
    size = 0
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            files = cli.session_files()
            if files and files[0].stat().st_size != size:  # read only what grew
                size = files[0].stat().st_size
                seen = complete_lines(files[0])
                if seen.count(b"\n") >= k:
                    break
            time.sleep(0.002)
        finished_first = proc.poll() is not None
        if not finished_first:
            os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    return {"seen": seen, "finished_first": finished_first}


def one_run(tmp: Path, index: int, k: int, model: str, resume_model: str) -> dict[str, Any]:
    cli = new_cli(tmp / f"run{index}")
    outcome = run_and_kill(cli, model, k)
    (path,) = cli.session_files()
    seen: bytes = outcome["seen"]
    after_kill = path.read_bytes()
    assert after_kill.startswith(seen), f"run {index} (k={k}): acknowledged lines changed"
    events = check_log(path)
    assert len(events) >= seen.count(b"\n")
    state = reduce(events)
    session_id = path.stem

    shown = cli.run("show", session_id)
    assert shown.returncode == 0 and session_id in shown.stdout, shown.stderr
    if state.runs:  # (killed right after the session's first line: no run yet)
        assert "do the steps" in shown.stdout
    assert "Traceback" not in shown.stderr, shown.stderr

    again = cli.run("ask", "and now?", "--session", session_id, "--model", resume_model, "--yes")
    assert again.returncode == 0, f"run {index} (k={k}): resume failed\n{again.stderr}"
    assert "Resumed." in again.stdout and "Traceback" not in again.stderr, again.stderr

    final = path.read_bytes()
    assert final.startswith(after_kill), f"run {index}: the resume rewrote the log"
    resumed = check_log(path)  # seqs still run on without a gap
    assert resumed[: len(events)] == events, f"run {index}: events before the kill changed"
    open_run = state.open_run
    closed = [e for e in resumed if isinstance(e, RunClosed)]
    if open_run is not None:
        assert [(e.run, e.reason) for e in closed] == [(open_run.run_id, "aborted")]
    else:
        assert not closed
    after_state = reduce(resumed)
    assert after_state.open_run is None
    check_history(after_state.messages)
    finished = resumed[-1]
    assert isinstance(finished, RunFinished) and finished.result.terminal_reason == "completed"
    return {
        "interrupted": open_run is not None,
        "dangling": len(state.dangling_tool_uses()),
        "torn": not after_kill.endswith(b"\n"),
        "finished_first": outcome["finished_first"],
        "last_kind": events[-1].kind if events else "none",
    }


def test_kill_9_at_random_points(tmp_path: Path, figures: Figures) -> None:
    model = write_script(tmp_path / "script.json", script_turns(delay=0.03))
    resume_model = write_script(tmp_path / "resume.json", [{"text": "Resumed."}])

    # One whole run first: how many lines a run writes, so k covers all of it.
    whole = new_cli(tmp_path / "whole")
    done = whole.run("ask", "do the steps", "--model", model, "--yes")
    assert done.returncode == 0, done.stderr
    total = len(read_events(whole.session_files()[0]))
    assert total > 40, total  # a run rich enough to be killed in many places

    rng = random.Random(SEED)
    ks = [rng.randint(1, total) for _ in range(RUNS)]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(
            pool.map(lambda i: one_run(tmp_path, i, ks[i], model, resume_model), range(RUNS))
        )
    elapsed = time.monotonic() - started
    wait_until(lambda: not processes_with(MARKER), timeout=15, what="the killed runs' commands")

    interrupted = sum(r["interrupted"] for r in results)
    dangling = sum(r["dangling"] > 0 for r in results)
    torn = sum(r["torn"] for r in results)
    kinds = collections.Counter(r["last_kind"] for r in results)
    figures(
        f"kill -9: {RUNS} runs (log of {total} lines; k from {min(ks)} to {max(ks)}) in "
        f"{elapsed:.1f} s; {interrupted} killed mid-run, {dangling} with tool calls in flight, "
        f"{torn} with a torn last line; last event before the kill: {dict(kinds)}"
    )
    assert interrupted >= RUNS * 0.7, "most kills should land inside a run"
    assert dangling >= 5, "some kills should land while tools run"
