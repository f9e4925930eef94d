"""Approvals at a real terminal (a pty): y once, a always for the session, n deny."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli, wait_until
from tests.e2e.terminal import TerminalRun


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
    with TerminalRun(["ask", "touch things", "--model", f"scripted:{script}"], workspace,
                     cli.env) as run:  # fmt: skip
        wait_until(lambda: run.count("Allow?") == 1, what="the first question")
        run.type("a\n")
        wait_until(lambda: run.count("Allow?") == 2, what="the second question")
        assert run.count("rule added: run_command(touch a)") == 1
        run.type("n\n")
        assert run.wait() == 0
        assert run.count("Allow?") == 2  # the repeated command was not asked again
    assert (workspace / "a").exists()
    assert not (workspace / "b").exists()
