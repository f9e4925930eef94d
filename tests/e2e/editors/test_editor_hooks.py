"""A settings hook's notice in the real editors' log buffers: the person's own
`PostToolUse` hook on `Bash` runs after the approved command, exits 1 with a message,
and the run goes on; Neovim's and Emacs's *agentls* log shows the `hook` event after
the call, as the CLI prints it. The model is not told (a non-blocking error is the
person's)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e.editors.real_editor import ANSWER, EDITORS, make_workspace, run_editor
from tests.e2e.editors.real_editor import script_the_model as command_edit_answer
from tests.e2e.editors.test_emacs import has_eglot
from tests.fakes.anthropic_server import FakeAnthropic

HERE = Path(__file__).parent
HOOK = "touch hook-ran; echo 'lint server down' >&2; exit 1"
SAID = f"! PostToolUse hook `{HOOK}`: exited with 1: lint server down; the run goes on"


def home_with_a_hook(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    settings = home / ".config" / "agentls" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": HOOK}]},
    ]}}))  # fmt: skip
    return home


def check(log: str, root: Path, fake: FakeAnthropic) -> None:
    assert (root / "ran.txt").exists() and (root / "hook-ran").exists()  # both ran
    after_the_call = log.split("→ run_command: touch ran.txt", 1)[1]
    assert f"\n{SAID}\n" in after_the_call, log
    assert ANSWER in log and "[completed · 3 turns · " in log  # the run went on
    assert len(fake.requests) == 3
    assert not any("lint server down" in json.dumps(r.body) for r in fake.requests)


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed")
def test_neovim_log_shows_a_failing_hook(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    command_edit_answer(fake)
    home = home_with_a_hook(tmp_path)
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data")}  # fmt: skip
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_person.lua'}"],
        cwd=root, env=env, report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["result"]["terminalReason"] == "completed", report.get("log")
    check(report["log"], root, fake)


@pytest.mark.skipif(not has_eglot(), reason="emacs with eglot is not installed")
def test_emacs_log_shows_a_failing_hook(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    command_edit_answer(fake)
    home = home_with_a_hook(tmp_path)
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8"}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"), "-l", str(HERE / "emacs_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin="once\napply\n",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["result"]["terminalReason"] == "completed", report.get("log")
    check(report["log"], root, fake)
