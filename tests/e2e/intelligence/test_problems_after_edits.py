"""Problems after edits through `agentls ask` and a real basedpyright."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.intelligence.conftest import SERVER_PATH, edit, read, user_settings
from tests.helpers import script

A_PY = "def greet(name: str) -> str:\n    return 'hi ' + name\n"
# One problem is there before the agent comes: it must never be reported as new.
B_PY = "from a import greet\n\nold: int = 'already wrong'\nprint(greet('x'))\n"
NEW_ERROR = 'b.py:4: Type "str" is not assignable to declared type "int"'


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (workspace / "a.py").write_text(A_PY)
    (workspace / "b.py").write_text(B_PY)
    return workspace


def tool_results_text(events: list[dict[str, Any]]) -> list[str]:
    texts = []
    for event in events:
        if event["kind"] == "tool_results":
            blocks = event["message"]["content"]
            texts.append("\n".join(str(b.get("text") or b.get("content") or "") for b in blocks))
    return texts


def test_a_new_type_error_reaches_the_model_and_its_fix_clears_it(
    cli: Cli, project: Path, tmp_path: Path, pyright_path: str
) -> None:
    model = script(tmp_path, [
        {"toolCalls": [read("b.py")]},
        {"toolCalls": [edit("b.py", "print(greet('x'))", "x: int = greet('x')")]},
        # the next model request carries the new problem, matched to the edited version
        {"expect": {"lastMessageContains": NEW_ERROR},
         "toolCalls": [edit("b.py", "x: int = greet('x')", "x: str = greet('x')")]},
        {"text": "Fixed."},
    ])  # fmt: skip
    env = {"PATH": pyright_path, **user_settings(tmp_path, {"languageServers": {"ruff": None}})}
    proc = cli.run("ask", "use greet", "--model", model, "--yes", env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr + proc.stdout

    events = cli.events()
    problems = [e for e in events if e["kind"] == "problems"]
    assert len(problems) == 1, problems  # the fix introduced nothing
    (reported,) = problems[0]["problems"]
    assert reported["path"] == "b.py" and reported["line"] == 4
    assert reported["source"] == "basedpyright" and reported["severity"] == "error"
    results = tool_results_text(events)
    assert NEW_ERROR in results[1]
    # the problem that was there before is never reported, and the fix clears the new one
    after_edits = "\n".join(results[1:])
    assert "already wrong" not in after_edits and "b.py:3:" not in after_edits
    assert "New problems" not in results[2]
    assert (project / "b.py").read_text().endswith("x: str = greet('x')\n")

    shown = cli.run("show", cli.session_files()[0].stem, env=env)
    assert f"⚠ {NEW_ERROR}" in shown.stdout, shown.stdout + shown.stderr
    # the log alone replays the run: same calls, same decisions
    (project / "b.py").write_text(B_PY)
    replay = cli.run("replay", cli.session_files()[0].stem, env=env, timeout=120)
    assert replay.returncode == 0, replay.stderr + replay.stdout


def test_without_a_language_server_the_run_is_healthy_and_the_tools_say_why(
    cli: Cli, project: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, [
        {"toolCalls": [edit("b.py", "print(greet('x'))", "x: int = greet('x')")]},
        {"expect": {"lastToolResultContains": "Edited b.py"},
         "toolCalls": [{"name": "problems", "input": {"path": "b.py"}}]},
        {"expect": {"lastToolResultContains": "basedpyright-langserver was not found on PATH"},
         "toolCalls": [{"name": "definition",
                        "input": {"path": "b.py", "line": 1, "symbol": "greet"}}]},
        {"expect": {"lastToolResultContains": "install it: pip install basedpyright"},
         "text": "No language server here."},
    ])  # fmt: skip
    proc = cli.run("ask", "try", "--model", model, "--yes", env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert not [e for e in cli.events() if e["kind"] == "problems"]


def test_warnings_by_setting_from_ruff_too(cli: Cli, project: Path, tmp_path: Path) -> None:
    import shutil

    if shutil.which("ruff", path=SERVER_PATH) is None:
        pytest.fail("ruff is not installed for the tests: pip install -e '.[dev]'")
    model = script(tmp_path, [
        {"toolCalls": [edit("b.py", "from a import greet\n", "import os\nfrom a import greet\n")]},
        {"expect": {"lastMessageContains": "b.py:1:"}, "text": "An unused import."},
    ])  # fmt: skip
    settings = {"languageServers": {"basedpyright": None}, "problems": {"severity": "warning"}}
    env = {"PATH": SERVER_PATH, **user_settings(tmp_path, settings)}
    proc = cli.run("ask", "import os", "--model", model, "--yes", env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    (event,) = [e for e in cli.events() if e["kind"] == "problems"]
    found = {(p["path"], p["source"], p["code"], p["severity"]) for p in event["problems"]}
    assert ("b.py", "Ruff", "F401", "warning") in found
