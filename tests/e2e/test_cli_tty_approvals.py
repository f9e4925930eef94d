"""Approvals at a real terminal (a pty): y once, a always for the session, n deny."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.e2e.terminal import TerminalRun
from tests.helpers import wait_until


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


def session_events(cli: Cli) -> list[dict[str, object]]:
    (path,) = cli.session_files()
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_always_on_a_call_no_rule_covers_allows_it_once(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    inline = {"name": "run_command", "input": {"command": "python3 -c 'print(1)'"}}
    touch = {"name": "run_command", "input": {"command": "touch other"}}
    turns = [{"toolCalls": [inline]}, {"toolCalls": [touch]}, {"text": "Done."}]
    script.write_text(json.dumps({"turns": turns}))
    with TerminalRun(["ask", "two commands", "--model", f"scripted:{script}"], workspace,
                     cli.env) as run:  # fmt: skip
        wait_until(lambda: run.count("Allow?") == 1, what="the first question")
        first = run.output().decode()
        run.type("a\n")  # "always", where no rule can say what it would allow
        wait_until(lambda: run.count("Allow?") == 2, what="the different command's question")
        run.type("n\n")
        assert run.wait() == 0
        shown = run.output().decode()
    assert "No rule can cover this call, so it can only be allowed once." in first
    assert "Allow? [y] once  [n] deny:" in first and "[a] always" not in first
    assert "touch other" in shown[len(first) :] and "rule added" not in shown
    answers = [e["answer"] for e in session_events(cli) if e["kind"] == "decision"]
    assert answers == ["allow_once", "deny"]
    assert not (workspace / "other").exists()


def test_a_command_cannot_draw_over_its_approval_prompt(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    # Erase the line, go back to its start, up one line, erase it: a terminal that
    # obeyed would show `git status` where the command is `touch pwned`.
    hidden = "touch pwned # \x1b[2K\r\x1b[1A\x1b[2K git status"
    title = "\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07"  # the window title, the clipboard
    script = tmp_path / "script.json"
    command = {"name": "run_command", "input": {"command": hidden}}
    turns = [{"toolCalls": [command]}, {"text": f"Nothing to see.{title}\r\n"}]
    script.write_text(json.dumps({"turns": turns}))
    prompt = "status\x1b[8m"  # and the rest of the listing concealed
    with TerminalRun(["ask", prompt, "--model", f"scripted:{script}"], workspace,
                     cli.env) as run:  # fmt: skip
        wait_until(lambda: run.count("Allow?") == 1, what="the question")
        run.type("n\n")
        assert run.wait() == 0
        stderr, stdout = run.output("stderr"), run.output("stdout")
    for printed in (stderr, stdout):
        assert b"\x1b" not in printed and b"\r" not in printed and b"\x07" not in printed
    # What the person reads: the command as it is, its escapes spelled out.
    assert rb"$ touch pwned # \x1b[2K\r\x1b[1A\x1b[2K git status" in stderr
    assert rb"Nothing to see.\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07\r" in stdout
    assert not (workspace / "pwned").exists()

    (path,) = cli.session_files()
    shown = cli.run("show", path.stem)
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert r"touch pwned # \x1b[2K" in shown.stdout
    assert r"Nothing to see.\x1b]0;owned\x07" in shown.stdout
    listed = cli.run("sessions")
    assert "\x1b" not in listed.stdout and r"status\x1b[8m" in listed.stdout
