"""The memory commands in the real editors: Neovim's :AgentMemory and :AgentForget and
Emacs's M-x agentls-memory and M-x agentls-forget-memory, against `agentls serve` on
the store `agentls memory` keeps; what is forgotten is gone from that store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.editors.real_editor import EDITORS, make_workspace, run_editor
from tests.e2e.editors.test_emacs import has_eglot
from tests.e2e.editors.test_neovim import isolated_env

HERE = Path(__file__).parent


def memory(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "agentls", "memory", *args], cwd=root,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def kept(root: Path) -> tuple[str, str]:
    """A project memory and one of the person's: their ids."""
    project = memory(root, "add", "Run the tests with pnpm test.").stdout.split()[1]
    person = memory(root, "add", "Answer briefly.", "--scope", "user").stdout.split()[1]
    return project, person


def left(root: Path) -> list[str]:
    return [m["id"] for m in json.loads(memory(root, "list", "--json").stdout)]


def check_list(listed: str, project: str, person: str) -> None:
    assert f"{person}  [user, explicit_user_rule, high, 0d old]  Answer briefly." in listed
    project_line = f"{project}  [project, explicit_user_rule, high, 0d old]  Run the tests with"
    assert project_line in listed


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed")
def test_neovim_lists_memories_and_forgets_one(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    project, person = kept(root)
    env = {**isolated_env(model_env, tmp_path), "AGENTLS_TEST_FORGET": project}
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_memory_person.lua'}"],
        cwd=root, env=env, report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["listed"] is True and report["shown"] is True, report
    check_list(report["list"], project, person)
    assert report["forgot"] is True, report["log"]
    after = report["log"].split(f"🧠 forgot {project}; memory:")[1]
    assert person in after and project not in after
    assert left(root) == [person]


@pytest.mark.skipif(not has_eglot(), reason="emacs with eglot is not installed")
def test_emacs_lists_memories_and_forgets_one(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    project, person = kept(root)
    home = tmp_path / "home"
    home.mkdir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8", "PATH": path}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"),
         "-l", str(HERE / "emacs_memory_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin=f"{project}\n",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["connected"] is True and report["listed"] is True, report
    assert report["shown"] is True
    check_list(report["list"], project, person)
    assert report["forgot"] is True, report["log"]
    after = report["log"].split(f"🧠 forgot {project}; memory:")[1]
    assert person in after and project not in after
    assert left(root) == [person]
