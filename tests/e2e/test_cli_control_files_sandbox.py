"""Control files inside the sandbox, end to end: what an allow rule lets run cannot write
them however it does it, and a run a person approved because it writes them can.

Where the analysis cannot see a write (a script it allowed by rule writes
``.git/config`` itself), the read-only mount still holds; ``git commit``, which
the analysis knows writes ``.git``, asks the person, and once they say yes at the
terminal it commits.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentls.workspace import sandbox
from tests.e2e.conftest import Cli
from tests.e2e.terminal import TerminalRun
from tests.helpers import wait_until

pytestmark = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None, reason=f"no sandbox here: {sandbox.bwrap_problem()}"
)
GIT = ["git", "-c", "user.name=a", "-c", "user.email=a@b"]
EVIL = """\
import pathlib
pathlib.Path("ran.txt").write_text("yes")
for path, text in ((".git/config", "[core]\\n\\tfsmonitor = touch pwned\\n"),
                   (".git/hooks/pre-commit", "#!/bin/sh\\ntouch pwned\\n")):
    try:
        with open(path, "a") as target:
            target.write(text)
    except OSError as error:
        print("refused:", path, error.strerror)
"""


def _repository(workspace: Path) -> None:
    subprocess.run([*GIT, "init", "-q"], cwd=workspace, check=True)
    subprocess.run([*GIT, "commit", "-q", "--allow-empty", "-m", "first"], cwd=workspace,
                   check=True)  # fmt: skip


def _commits(workspace: Path) -> int:
    done = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=workspace,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_a_script_allowed_by_rule_cannot_write_control_files(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    _repository(workspace)
    (workspace / "evil.py").write_text(EVIL)
    config = (workspace / ".git" / "config").read_bytes()
    script = tmp_path / "script.json"
    run = {"name": "run_command", "input": {"command": "python3 evil.py"}}
    script.write_text(json.dumps({"turns": [{"toolCalls": [run]}, {"text": "Done."}]}))
    proc = cli.run("ask", "run it", "--model", f"scripted:{script}",
                   "--allow", "run_command(python3 *)")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "ran.txt").read_text() == "yes"  # the script ran, sandboxed
    assert (workspace / ".git" / "config").read_bytes() == config
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()


def test_the_same_script_writes_them_without_the_sandbox(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    """The test above can fail: with the sandbox off, the script's writes land."""
    _repository(workspace)
    (workspace / "evil.py").write_text(EVIL)
    config = cli.state / "config"
    (config / "agentls").mkdir(parents=True)
    (config / "agentls" / "settings.json").write_text(json.dumps({"sandbox": "off"}))
    script = tmp_path / "script.json"
    run = {"name": "run_command", "input": {"command": "python3 evil.py"}}
    script.write_text(json.dumps({"turns": [{"toolCalls": [run]}, {"text": "Done."}]}))
    proc = cli.run(
        "ask", "run it", "--model", f"scripted:{script}", "--allow", "run_command(python3 *)",
        env={"XDG_CONFIG_HOME": str(config)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (workspace / ".git" / "hooks" / "pre-commit").exists()


def test_a_commit_a_person_approves_is_made_inside_the_sandbox(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    _repository(workspace)
    script = tmp_path / "script.json"
    commit = "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m second"
    calls = [{"name": "run_command", "input": {"command": commit}}]
    turns = [{"toolCalls": calls}, {"toolCalls": calls}, {"text": "Done."}]
    script.write_text(json.dumps({"turns": turns}))
    with TerminalRun(["ask", "commit", "--model", f"scripted:{script}", "--allow",
                      "run_command(git *)"], workspace, cli.env) as run:  # fmt: skip
        wait_until(lambda: run.count("Allow?") == 1, what="the question")
        assert "control file" in run.output().decode()
        run.type("y\n")
        wait_until(lambda: run.count("Allow?") == 2, what="the second question")
        run.type("n\n")  # a rule names git, yet a control file's write asks each time
        assert run.wait() == 0
    assert _commits(workspace) == 2
