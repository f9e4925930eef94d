"""Approvals at a real terminal (a pty): y once, a always for the session, n deny."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import threading
from pathlib import Path

from tests.e2e.conftest import AGENTLS, Cli, wait_until


class StderrReader:
    """Collects a process's stderr on a thread so the test can wait for prompts."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.text = ""
        self._lock = threading.Lock()
        assert proc.stderr is not None
        self._thread = threading.Thread(target=self._pump, args=(proc.stderr,), daemon=True)
        self._thread.start()

    def _pump(self, stream: object) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
            with self._lock:
                self.text += chunk.decode(errors="replace")

    def count(self, needle: str) -> int:
        with self._lock:
            return self.text.count(needle)


def test_terminal_approvals(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    touch = {"name": "run_command", "input": {"command": "touch a"}}
    remove = {"name": "run_command", "input": {"command": "touch b"}}
    script.write_text(
        json.dumps(
            {
                "turns": [
                    {"toolCalls": [touch]},  # answered "a": allowed, rule added
                    {"toolCalls": [touch]},  # not asked again
                    {"toolCalls": [remove]},  # answered "n"
                    {"expect": {"lastToolResultContains": "denied"}, "text": "Done."},
                ]
            }
        )
    )
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [*AGENTLS, "ask", "touch things", "--model", f"scripted:{script}"],
        cwd=workspace,
        env=cli.env,
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(terminal)
    try:
        err = StderrReader(proc)
        wait_until(lambda: err.count("Allow?") == 1, what="the first question")
        os.write(controller, b"a\n")
        wait_until(lambda: err.count("Allow?") == 2, what="the second question")
        assert err.count("rule added: run_command(touch a)") == 1
        os.write(controller, b"n\n")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(controller)
    assert (workspace / "a").exists()
    assert not (workspace / "b").exists()
    assert err.count("Allow?") == 2  # the repeated command was not asked again
