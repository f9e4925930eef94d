"""Emacs 28 (emacs-nox) with Debian's eglot, in batch mode, with editors/emacs/agentls.el.

The whole flow a person goes through: M-x eglot, M-x agentls-ask -> allow
the command in the minibuffer -> the diff in a window, then Apply (and yes to
eglot's own "Proceed?") -> the answer in *agentls*; then the buffer, the file
on disk and what the model was sent are checked. The answers are typed on
stdin, which is where Emacs in batch mode reads the minibuffer from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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

HERE = Path(__file__).parent


def has_eglot() -> bool:
    if shutil.which("emacs") is None:
        return False
    probe = subprocess.run(
        ["emacs", "--batch", "--eval", "(require 'eglot)"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not has_eglot(), reason="emacs with eglot is not installed")


def test_emacs_eglot_ask_approve_review_answer(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    greet = make_workspace(root)
    script_the_model(fake)
    home = tmp_path / "home"
    home.mkdir()
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8"}  # fmt: skip
    typed = "Allow once\nApply\ny\n"  # the command, the edit, eglot's "Proceed?"
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"), "-l", str(HERE / "emacs_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin=typed,
    )  # fmt: skip
    report = outcome.report
    assert report, f"no report\n{outcome.stdout}\n{outcome.stderr}"
    assert report["errors"] == [], (report["errors"], outcome.stderr[-3000:])
    assert report["connected"], outcome.stderr[-3000:]
    assert report["asked"] is True, (report.get("log"), outcome.stderr[-3000:])

    approval, review = report["prompts"]
    assert approval["prompt"] == "agentls asks to use run_command: touch ran.txt: "
    assert approval["choices"][0] == "Allow once: run_command: touch ran.txt"
    assert approval.get("diff") is None
    assert review["prompt"] == "agentls: edit greet.py (+4 −0 lines)? "
    assert "+def shout(name):" in review["diff"]  # the diff was on screen when asked
    # the real prompts, as Emacs printed them, including eglot's own confirmation
    assert "agentls asks to use run_command: touch ran.txt" in outcome.stdout
    assert "Server wants to edit" in outcome.stdout

    assert (root / "ran.txt").exists()  # the approved command ran
    assert report["buffer"] == SHOUT  # the edit landed in the buffer...
    assert report["modifiedBeforeSave"] is True  # ...unsaved, as an edit the person made
    assert greet.read_text() == SHOUT  # and the person saved it

    assert report["result"]["terminalReason"] == "completed"
    assert report["result"]["text"] == ANSWER
    log = report["log"]
    assert ANSWER in log and "[completed · 3 turns" in log
    assert "→ run_command: touch ran.txt" in log and "✓ applied to greet.py" in log
    assert len(fake.requests) == 3
    assert outcome.returncode == 0


def test_emacs_eglot_alone_through_the_standard_prompts(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """eglot-plain.el, used as written: `agentls` on PATH, eglot's own prompts."""
    greet = make_workspace(root)
    script_the_model(fake)
    home = tmp_path / "home"
    home.mkdir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8", "PATH": path, "AGENTLS_EL_DIR": str(EDITORS / "emacs")}  # fmt: skip
    typed = "Allow once\nApply\ny\n"  # the command, the edit (diff in the prompt), "Proceed?"
    outcome = run_editor(
        ["emacs", "--batch", "-l", str(HERE / "emacs_plain_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin=typed,
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["finished"] is True, outcome.stderr[-3000:]
    prompts = outcome.stdout.split("Choose an option: ")
    assert "agentls wants to use run_command" in prompts[0] and "touch ran.txt" in prompts[0]
    assert "Apply it?" in prompts[1] and "+def shout(name):" in prompts[1]  # the diff, inline
    assert "Server wants to edit" in outcome.stdout
    assert (root / "ran.txt").exists()
    assert report["buffer"] == SHOUT and greet.read_text() == SHOUT
    assert "agentls: done. " + ANSWER in outcome.stderr  # the last message, as eglot shows it
    transcript = Path(report["transcript"].removeprefix("file://")).read_text()
    assert ANSWER in transcript
