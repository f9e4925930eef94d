"""kill -9 mid-run loses nothing acknowledged; Ctrl-C aborts cleanly; resume works."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.helpers import wait_until, write_script
from tests.processes import processes_with


def kinds(cli: Cli) -> list[str]:
    files = cli.session_files()
    if not files:
        return []
    return [json.loads(line)["kind"] for line in files[0].read_text().splitlines()
            if line.endswith("}")]  # fmt: skip


def test_kill_9_mid_run_then_show_and_resume(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    (workspace / "notes.md").write_text("remember the milk\n")
    read_notes = {"name": "read_file", "input": {"path": "notes.md"}}
    model = write_script(
        tmp_path / "script.json",
        [
            {"text": "Reading the notes.", "toolCalls": [read_notes]},
            {"text": "Thinking hard...", "delaySeconds": 60},
        ],
    )
    proc = cli.popen("ask", "what do my notes say", "--model", model)
    try:
        wait_until(lambda: kinds(cli).count("model_request") == 2, what="the second model call")
    finally:
        proc.kill()  # SIGKILL: no cleanup runs
        proc.wait()
    session_id = cli.session_files()[0].stem

    shown = cli.run("show", session_id)
    assert shown.returncode == 0, shown.stderr
    assert "what do my notes say" in shown.stdout
    assert "read_file notes.md" in shown.stdout
    assert "remember the milk" in shown.stdout
    assert "did not finish" in shown.stdout

    listed = cli.run("sessions")
    assert session_id in listed.stdout and "unfinished" in listed.stdout

    resume = write_script(
        tmp_path / "resume.json", [{"text": "Your notes say: remember the milk."}]
    )
    again = cli.run("ask", "and now?", "--session", session_id, "--model", resume)
    assert again.returncode == 0, again.stderr
    assert "remember the milk" in again.stdout
    events = [json.loads(line) for line in cli.session_files()[0].read_text().splitlines()]
    closed = [e for e in events if e["kind"] == "run_closed"]
    assert len(closed) == 1 and closed[0]["reason"] == "aborted"
    assert events[-1]["kind"] == "run_finished"
    assert events[-1]["result"]["terminalReason"] == "completed"


def test_ctrl_c_aborts_and_kills_the_command(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    marker = "sleep 417.25"
    command = {"name": "run_command", "input": {"command": f"{marker} & {marker}; wait"}}
    model = write_script(tmp_path / "script.json", [{"toolCalls": [command]}])
    proc = cli.popen("ask", "sleep", "--model", model, "--yes")
    try:
        wait_until(lambda: len(processes_with(marker)) >= 2, what="the command's children")
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "aborted" in err
    wait_until(lambda: not processes_with(marker), timeout=10, what="the children to be gone")
    events = [json.loads(line) for line in cli.session_files()[0].read_text().splitlines()]
    assert events[-1]["kind"] == "run_finished"
    assert events[-1]["result"]["terminalReason"] == "aborted"
    results = [e for e in events if e["kind"] == "tool_results"]
    assert results and results[-1]["message"]["content"][0]["isError"] is True


def test_scripted_demo_is_labelled(cli: Cli, workspace: Path) -> None:
    (workspace / "greet.py").write_text(
        'def greet(name: str) -> str:\n    return f"Hello, {name}!"\n'
    )
    proc = cli.run("ask", "add shout()", "--model", "scripted:demo", "--yes")
    assert "SCRIPTED DEMO MODEL" in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert "def shout" in (workspace / "greet.py").read_text()
    assert "HELLO, WORLD!" in proc.stdout
