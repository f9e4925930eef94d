"""A termination signal ends `agentls ask` and its process, even when nothing reads its
output or a question waits for the person; the log still gets the run's end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import AGENTLS, Cli
from tests.e2e.terminal import TerminalRun
from tests.helpers import wait_until

ENDS_WITHIN = 20  # seconds: a wait limit, not a timing claim


def blocked_writing_a_pipe(pid: int) -> bool:
    """Whether one of the process's threads waits in the kernel for a full pipe."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if "pipe_write" in (task / "wchan").read_text():
                return True
        except OSError:  # the thread just ended
            continue
    return False


def last_event(cli: Cli) -> dict[str, object]:
    (path,) = cli.session_files()
    event: dict[str, object] = json.loads(path.read_text().splitlines()[-1])
    return event


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_ends_an_ask_whose_stderr_nobody_reads(
    signum: int, cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    name = "n" * 200  # a long name: long tool rows on stderr
    (workspace / name).write_text("x\n")
    reads = [{"name": "read_file", "input": {"path": name}}] * 50
    turns = [{"toolCalls": reads}] * 10 + [{"text": "Still thinking.", "delaySeconds": 600}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    proc = subprocess.Popen(
        [*AGENTLS, "ask", "read it", "--model", f"scripted:{script}"], cwd=workspace,
        env=cli.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    try:
        wait_until(lambda: blocked_writing_a_pipe(proc.pid), what="a write to the full stderr")
        proc.send_signal(signum)
        assert proc.wait(timeout=ENDS_WITHIN) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    end = last_event(cli)
    assert end["kind"] == "run_finished"
    assert end["result"]["terminalReason"] == "aborted"  # type: ignore[index]


def test_sigterm_ends_an_ask_waiting_for_an_answer_at_the_terminal(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    touch = {"name": "run_command", "input": {"command": "touch never"}}
    script.write_text(json.dumps({"turns": [{"toolCalls": [touch]}, {"text": "Done."}]}))
    with TerminalRun(["ask", "touch", "--model", f"scripted:{script}"], workspace,
                     cli.env) as run:  # fmt: skip
        wait_until(lambda: run.count("Allow?") == 1, what="the question")
        os.kill(run.proc.pid, signal.SIGTERM)  # and nobody answers
        assert run.wait(timeout=ENDS_WITHIN) == 130
    assert not (workspace / "never").exists()
    end = last_event(cli)
    assert end["kind"] == "run_finished"
    assert end["result"]["terminalReason"] == "aborted"  # type: ignore[index]
