"""The model's plan in the real editors' log buffers, and a proposed plan answered there:
Neovim (the plugin) and Emacs (agentls.el over eglot), in plan mode. The person switches
to default mode, and the next request the model gets offers the write tools."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.editors.real_editor import EDITORS, make_workspace, run_editor
from tests.e2e.editors.test_emacs import has_eglot
from tests.fakes.anthropic_server import FakeAnthropic, turn

HERE = Path(__file__).parent
STEPS = [
    {"step": "Read greet.py", "status": "completed"},
    {"step": "Add shout()", "status": "in_progress"},
    {"step": "Run it", "status": "pending"},
]
PLAN = "# Plan\n1. Add shout() to greet.py\n2. Run it"


def script_a_plan(fake: FakeAnthropic) -> None:
    fake.add(
        turn(tool_calls=[("toolu_plan", "update_plan", {"plan": STEPS, "explanation": "small"})]),
        turn(tool_calls=[("toolu_propose", "propose_plan", {"plan": PLAN})]),
        turn("Switched: ready to write."),
    )


def check_the_run(fake: FakeAnthropic, report: dict, stderr: str) -> str:
    assert report, f"no report\n{stderr[-3000:]}"
    assert report["errors"] == [], (report["errors"], stderr[-3000:])
    assert report["asked"] is True, (report.get("log"), stderr[-3000:])
    assert report["result"]["terminalReason"] == "completed"
    tools = [[t["name"] for t in r.body.get("tools", [])] for r in fake.requests]
    assert "edit_file" not in tools[0] and "propose_plan" in tools[0]  # plan mode
    assert "edit_file" in tools[2] and "propose_plan" not in tools[2]  # default mode
    log: str = report["log"]
    assert "☰ plan (1/3 done): small" in log
    assert "  [x] Read greet.py\n  [>] Add shout()\n  [ ] Run it" in log
    assert "⚑ proposed plan:\n  # Plan\n  1. Add shout() to greet.py" in log
    assert "mode: default" in log
    return log


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed")
def test_neovim_shows_the_plan_and_answers_the_proposed_one(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    script_a_plan(fake)
    home = tmp_path / "home"
    home.mkdir()
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data")}  # fmt: skip
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_plan_person.lua'}"],
        cwd=root, env=env, report=tmp_path / "report.json",
    )  # fmt: skip
    check_the_run(fake, outcome.report, outcome.stderr)
    (question,) = outcome.report["prompts"]
    assert question["prompt"] == "agentls: start on the proposed plan?"
    assert question["choices"] == [
        "Switch to default: the proposed plan",
        "Switch to accept-edits: the proposed plan",
        "Keep planning: the proposed plan",
    ]


@pytest.mark.skipif(not has_eglot(), reason="emacs with eglot is not installed")
def test_emacs_shows_the_plan_and_answers_the_proposed_one(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    script_a_plan(fake)
    home = tmp_path / "home"
    home.mkdir()
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8"}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"),
         "-l", str(HERE / "emacs_plan_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin="default\n",
    )  # fmt: skip
    check_the_run(fake, outcome.report, outcome.stderr)
    (question,) = outcome.report["prompts"]
    assert question["prompt"] == (
        "agentls: start on the proposed plan? default, accept-edits or keep: "
    )
    assert question["choices"] == ["default", "accept-edits", "keep"]
