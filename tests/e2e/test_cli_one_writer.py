"""One writer per session across processes: `agentls ask --session ID` twice at once."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli
from tests.helpers import script, wait_until
from tests.processes import processes_with

BUSY = "is running elsewhere (`agentls ask`, pid "


def reading_script(tmp_path: Path, name: str) -> str:
    return script(tmp_path, [
        {"toolCalls": [{"name": "read_file", "input": {"path": "a.txt"}}]},
        {"toolCalls": [{"name": "list_files", "input": {}}]},
        {"text": "Read it."},
    ], name)  # fmt: skip


def waiting_script(tmp_path: Path, marker: str) -> str:
    """A command that says it started, then waits for the test's `go` file."""
    command = f"touch started; while [ ! -e go ]; do sleep 0.02; done; : {marker}"
    return script(tmp_path, [
        {"toolCalls": [{"name": "run_command", "input": {"command": command}}]},
        {"text": "Waited."},
    ], "wait.json")  # fmt: skip


def new_session(cli: Cli, tmp_path: Path) -> str:
    (cli.workspace / "a.txt").write_text("hello\n")
    first = cli.run("ask", "start", "--model", reading_script(tmp_path, "first.json"))
    assert first.returncode == 0, first.stderr
    return cli.session_files()[0].stem


def assert_one_history(cli: Cli) -> list[dict[str, Any]]:
    events = cli.events()
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(events) + 1)), seqs  # strictly increasing, no gaps
    open_run = None
    for event in events:  # runs never interleave: each ends before the next starts
        if event["kind"] == "run_started":
            assert open_run is None, f"{event['run']} started inside {open_run}"
            open_run = event["run"]
        elif event.get("run") is not None and event["kind"] != "checkpoint":
            assert event["run"] == open_run, event
        if event["kind"] in ("run_finished", "run_closed"):
            open_run = None
    assert open_run is None
    return events


def test_two_asks_at_once_leave_one_consistent_log(cli: Cli, tmp_path: Path) -> None:
    session = new_session(cli, tmp_path)
    args = ("--model", reading_script(tmp_path, "again.json"), "--session", session)
    procs = [cli.popen("ask", f"again {n}", *args) for n in (1, 2)]
    results = [(p.wait(timeout=60), p.stderr.read() if p.stderr else "") for p in procs]
    for code, stderr in results:
        assert code == 0 or (code == 2 and BUSY in stderr), (code, stderr)
    ran = sum(1 for code, _ in results if code == 0)
    events = assert_one_history(cli)
    finished = [e for e in events if e["kind"] == "run_finished"]
    assert len(finished) == 1 + ran
    assert all(e["result"]["terminalReason"] == "completed" for e in finished)


def test_a_second_ask_refuses_while_the_first_runs_then_runs_after(
    cli: Cli, tmp_path: Path
) -> None:
    session = new_session(cli, tmp_path)
    holder = cli.popen(
        "ask", "wait", "--yes", "--model", waiting_script(tmp_path, "holder-a"),
        "--session", session,
    )  # fmt: skip
    try:
        wait_until(lambda: (cli.workspace / "started").exists(), what="the first ask's command")
        second = cli.run("ask", "meanwhile", "--model", reading_script(tmp_path, "b.json"),
                         "--session", session)  # fmt: skip
        assert second.returncode == 2
        assert f"session {session} {BUSY}{holder.pid}" in second.stderr
        assert "wait until that run ends or cancel it there" in second.stderr
        # Reading stays possible while it runs.
        assert cli.run("show", session).returncode == 0
        assert session in cli.run("sessions").stdout
        undo = cli.run("undo", session)
        assert undo.returncode == 2 and BUSY in undo.stderr
        (cli.workspace / "go").touch()
        assert holder.wait(timeout=60) == 0
    finally:
        holder.kill()
    after = cli.run("ask", "after", "--model", reading_script(tmp_path, "c.json"),
                    "--session", session)  # fmt: skip
    assert after.returncode == 0, after.stderr
    events = assert_one_history(cli)
    prompts = [e["prompt"] for e in events if e["kind"] == "run_started"]
    assert prompts == ["start", "wait", "after"]


def test_a_killed_holder_blocks_no_one(cli: Cli, tmp_path: Path) -> None:
    session = new_session(cli, tmp_path)
    marker = "holder-killed-731"
    holder = cli.popen(
        "ask", "wait", "--yes", "--model", waiting_script(tmp_path, marker), "--session", session
    )
    try:
        wait_until(lambda: (cli.workspace / "started").exists(), what="the first ask's command")
    finally:
        holder.kill()  # kill -9 while it holds the session
        holder.wait()
        (cli.workspace / "go").touch()  # lets the orphaned command end
        for pid in processes_with(marker):
            subprocess.run(["kill", "-9", str(pid)], check=False)
    after = cli.run("ask", "after", "--model", reading_script(tmp_path, "c.json"),
                    "--session", session)  # fmt: skip
    assert after.returncode == 0, after.stderr
    events = assert_one_history(cli)
    closed = [e for e in events if e["kind"] == "run_closed"]
    assert len(closed) == 1 and closed[0]["reason"] == "aborted"
