"""Real Neovim and Emacs answer agentls/problems from their own checkers
(vim.diagnostic, flymake): the model sees what the person's editor shows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.editors.real_editor import EDITORS, make_workspace, run_editor
from tests.e2e.editors.test_emacs import has_eglot
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import tool_result_text

HERE = Path(__file__).parent


def isolated(model_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    # No language server on PATH: only the editor can know about the problem.
    return {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data"),
            "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}  # fmt: skip


def script_problems(fake: FakeAnthropic) -> None:
    fake.add(turn(tool_calls=[("toolu_p", "problems", {"path": "greet.py"})]), turn("Seen."))


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed")
def test_neovim_answers_problems_from_vim_diagnostic(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    script_problems(fake)
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_problems_person.lua'}"],
        cwd=root, env=isolated(model_env, tmp_path), report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report, f"no report\n{outcome.stdout}\n{outcome.stderr}"
    assert report["errors"] == [], report["errors"]
    assert report["result"]["terminalReason"] == "completed", report
    seen = tool_result_text(fake, 1)
    assert "greet.py:2: name is never defined here (person-linter E999)" in seen
    assert report["status"] == ""  # agentls started no language server of its own


@pytest.mark.skipif(not has_eglot(), reason="emacs with eglot is not installed")
def test_emacs_answers_problems_from_flymake(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    script_problems(fake)
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"),
         "-l", str(HERE / "emacs_problems_person.el")],
        cwd=root, env=isolated(model_env, tmp_path), report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report, f"no report\n{outcome.stdout}\n{outcome.stderr}"
    assert report["errors"] == [], (report["errors"], outcome.stderr[-3000:])
    assert report["result"]["terminalReason"] == "completed", (report, outcome.stderr[-3000:])
    seen = tool_result_text(fake, 1)
    assert "greet.py:2: name is never defined here (person-linter)" in seen
    assert report["status"] == ""
