"""The bundled scripted demo at a terminal: a no to the edit or to the command,
and a second ask in the session, each end as a completed run that says what
happened; nothing is left behind that undo cannot take back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.e2e.editors.real_editor import DEMO_EDITED, make_demo_workspace
from tests.e2e.terminal import TerminalRun
from tests.helpers import wait_until

PROMPT = "Add a shout() function to greet.py that returns the greeting in capitals, then run it."


def demo_workspace(workspace: Path) -> str:
    greet = make_demo_workspace(workspace)
    (workspace / ".git").rmdir()  # as `make demo` copies it: no repository
    return greet.read_text()


def terminal_demo(cli: Cli, workspace: Path, *answers: str) -> TerminalRun:
    """The demo at a terminal, each answer typed when its question shows."""
    run = TerminalRun(["ask", PROMPT, "--model", "scripted:demo"], workspace, cli.env)
    for number, answer in enumerate(answers, 1):
        wait_until(lambda n=number: run.count("Allow?") == n, what=f"question {number}")
        run.type(answer + "\n")
    return run


def finished(cli: Cli) -> dict[str, object]:
    (path,) = cli.session_files()
    events = [json.loads(line) for line in path.read_text().splitlines()]
    ends = [e["result"] for e in events if e["kind"] == "run_finished"]
    return ends[-1]


def test_rejecting_the_edit_ends_the_demo_without_the_command(cli: Cli, workspace: Path) -> None:
    before = demo_workspace(workspace)
    with terminal_demo(cli, workspace, "n") as run:
        assert run.wait() == 0
        out, err = run.output("stdout").decode(), run.output().decode()
    assert "You rejected the edit, so greet.py is unchanged" in out
    assert "scripted demo" in out
    assert err.count("Allow?") == 1 and "run_command" not in err  # the check was not asked for
    assert "model_error" not in err and "did not match the script" not in err
    assert finished(cli)["terminalReason"] == "completed"
    assert (workspace / "greet.py").read_text() == before


def test_denying_the_command_ends_the_demo_with_the_edit_made(cli: Cli, workspace: Path) -> None:
    demo_workspace(workspace)
    with terminal_demo(cli, workspace, "y", "n") as run:
        assert run.wait() == 0
        out, err = run.output("stdout").decode(), run.output().decode()
    assert "You denied the command, so I did not run it." in out
    assert "model_error" not in err and "did not match the script" not in err
    assert finished(cli)["terminalReason"] == "completed"
    assert (workspace / "greet.py").read_text() == DEMO_EDITED


def test_a_rule_that_denies_the_command_is_named_as_a_rule(cli: Cli, workspace: Path) -> None:
    demo_workspace(workspace)
    (workspace / ".agentls").mkdir()
    (workspace / ".agentls" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["run_command(python3 *)"]}})
    )
    done = cli.run("ask", PROMPT, "--model", "scripted:demo", "--yes")
    assert done.returncode == 0, done.stderr
    assert "A rule in your settings denied the command" in done.stdout
    assert "You denied" not in done.stdout
    assert finished(cli)["terminalReason"] == "completed"
    assert (workspace / "greet.py").read_text() == DEMO_EDITED


def test_a_second_ask_in_the_session_says_it_is_a_script(cli: Cli, workspace: Path) -> None:
    demo_workspace(workspace)
    first = cli.run("ask", PROMPT, "--model", "scripted:demo", "--yes")
    assert first.returncode == 0, first.stderr
    assert "HELLO, WORLD!" in first.stdout
    (path,) = cli.session_files()
    again = cli.run(
        "ask", "now add a test", "--session", path.stem, "--model", "scripted:demo", "--yes"
    )
    assert again.returncode == 0, again.stderr
    assert "This is agentls's scripted demo, not a model" in again.stdout
    assert "ANTHROPIC_API_KEY" in again.stdout
    assert "did not match the script" not in again.stderr
    assert finished(cli)["terminalReason"] == "completed"
    assert (workspace / "greet.py").read_text() == DEMO_EDITED  # nothing done twice


def test_undoing_the_demo_leaves_the_workspace_as_it_was(cli: Cli, workspace: Path) -> None:
    demo_workspace(workspace)
    files = sorted(p.name for p in workspace.iterdir())
    before = {name: (workspace / name).read_bytes() for name in files}
    ran = cli.run("ask", PROMPT, "--model", "scripted:demo", "--yes")
    assert ran.returncode == 0 and "HELLO, WORLD!" in ran.stdout, ran.stderr
    (path,) = cli.session_files()
    undo = cli.run("undo", path.stem)
    assert undo.returncode == 0, undo.stderr
    assert sorted(p.name for p in workspace.iterdir()) == files  # no __pycache__ left
    assert {name: (workspace / name).read_bytes() for name in files} == before
