"""rename through a real server, reviewed once and undone; servers that crash, hang or are
missing leave the run healthy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.intelligence.conftest import edit, user_settings
from tests.e2e.intelligence.test_navigation import MORE, SHAPES, USE
from tests.helpers import script

FAKE_SERVERS = Path(__file__).parent / "fake_servers.py"


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (workspace / "shapes.py").write_text(SHAPES)
    (workspace / "use.py").write_text(USE)
    (workspace / "more.py").write_text(MORE)
    return workspace


def test_a_rename_across_three_files_is_one_review_and_one_undo(
    cli: Cli, project: Path, tmp_path: Path, pyright_path: str
) -> None:
    rename = {"path": "shapes.py", "line": 6, "symbol": "total", "new_name": "sum_areas"}
    model = script(tmp_path, [
        {"toolCalls": [{"name": "rename", "input": rename}]},
        {"expect": {"lastToolResultContains":
                    "Renamed total to sum_areas in 3 file(s): more.py, shapes.py, use.py"},
         "text": "Renamed."},
    ])  # fmt: skip
    env = {"PATH": pyright_path, **user_settings(tmp_path, {"languageServers": {"ruff": None}})}
    proc = cli.run("ask", "rename total", "--model", model, "--yes", env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert (project / "use.py").read_text() == USE.replace("total", "sum_areas")
    assert (project / "more.py").read_text() == MORE.replace("total", "sum_areas")
    assert "def sum_areas(shapes" in (project / "shapes.py").read_text()
    decisions = [e for e in cli.events() if e["kind"] == "decision"]
    assert len(decisions) == 1 and decisions[0]["verdict"] == "allow"  # one review, all files

    undo = cli.run("undo", cli.session_files()[0].stem, env=env)
    assert undo.returncode == 0, undo.stderr
    assert (project / "shapes.py").read_text() == SHAPES
    assert (project / "use.py").read_text() == USE
    assert (project / "more.py").read_text() == MORE


@pytest.mark.parametrize("behaviour", ["crash", "exit", "hang", "missing"])
def test_a_broken_server_leaves_the_run_healthy(
    cli: Cli, project: Path, tmp_path: Path, behaviour: str
) -> None:
    command = sys.executable if behaviour != "missing" else "no-such-language-server"
    server = {
        "command": command, "args": [str(FAKE_SERVERS), behaviour], "filePatterns": ["*.py"],
        "startTimeoutSeconds": 2, "requestTimeoutSeconds": 2,
    }  # fmt: skip
    settings = {
        "languageServers": {"basedpyright": None, "ruff": None, "broken": server},
        "problems": {"settleSeconds": 1},
    }
    model = script(tmp_path, [
        {"toolCalls": [edit("use.py", "print(total([Shape()]))", "print(total([]))")]},
        {"expect": {"lastToolResultContains": "Edited use.py"},
         "toolCalls": [{"name": "definition",
                        "input": {"path": "use.py", "line": 1, "symbol": "total"}}]},
        {"toolCalls": [{"name": "definition",
                        "input": {"path": "use.py", "line": 1, "symbol": "total"}}]},
        {"expect": {"lastToolResultContains": EXPECTED[behaviour]},
         "toolCalls": [{"name": "problems", "input": {"path": "use.py"}}]},
        {"expect": {"lastToolResultContains": "not checked"}, "text": "Done without it."},
    ])  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", **user_settings(tmp_path, settings)}
    proc = cli.run("ask", "go", "--model", model, "--yes", env=env, timeout=90)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert (project / "use.py").read_text().endswith("print(total([]))\n")
    assert not [e for e in cli.events() if e["kind"] == "problems"]


EXPECTED = {
    "crash": "broken crashed twice; it stays off until agentls restarts",
    "exit": "broken failed to initialize",
    "hang": "broken did not answer initialize within 2 s",
    "missing": "no-such-language-server was not found on PATH",
}
