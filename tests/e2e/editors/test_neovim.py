"""Neovim (Debian 12 ships 0.7.2), headless, with editors/neovim, against agentls serve.

The whole flow a person goes through: :AgentAsk -> allow the command ->
the diff in a split, then Apply -> the answer in the log buffer; then the
buffer, the file on disk and what the model was sent are checked.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.editors.real_editor import (
    ANSWER,
    EDITORS,
    SHOUT,
    make_workspace,
    run_editor,
    script_the_model,
)
from tests.fakes.anthropic_server import FakeAnthropic

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed")
HERE = Path(__file__).parent


def test_neovim_ask_approve_review_answer(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    greet = make_workspace(root)
    script_the_model(fake)
    home = tmp_path / "home"
    home.mkdir()
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data")}  # fmt: skip
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_person.lua'}"],
        cwd=root, env=env, report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report, f"no report\n{outcome.stdout}\n{outcome.stderr}"
    assert report["errors"] == [], report["errors"]
    assert report["asked"] is True, report.get("log")

    approval, review = report["prompts"]
    assert "touch ran.txt" in approval["prompt"]
    assert approval["choices"][0] == "Allow once: run_command: touch ran.txt"
    assert approval.get("diff") is None  # no diff for a command
    assert "edit greet.py (+4 −0 lines)" in review["prompt"]
    assert review["choices"] == ["Apply: edit greet.py (+4 −0 lines)",
                                 "Reject: edit greet.py (+4 −0 lines)"]  # fmt: skip
    assert "+def shout(name):" in review["diff"]  # the diff was on screen when asked

    assert (root / "ran.txt").exists()  # the approved command ran
    assert report["buffer"] + "\n" == SHOUT  # the edit landed in the buffer...
    assert report["modified_before_save"] is True  # ...unsaved, as an edit the person made
    assert greet.read_text() == SHOUT  # and the person saved it

    assert report["result"]["terminalReason"] == "completed"
    assert report["result"]["text"] == ANSWER
    log = report["log"]
    assert ANSWER in log and "[completed · 3 turns" in log
    assert "→ run_command: touch ran.txt" in log and "✓ applied to greet.py" in log
    assert len(fake.requests) == 3
    assert outcome.returncode == 0
