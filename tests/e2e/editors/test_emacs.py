"""Emacs 28 (emacs-nox) with Debian's eglot, in batch mode, with editors/emacs/agentls.el.

The whole flow a person goes through: M-x eglot, M-x agentls-ask -> allow
the command in the minibuffer -> the diff in a window, then apply (one
question: eglot's own "Proceed?" is not asked) -> the answer in *agentls*;
then the buffer, the file on disk and what the model was sent are checked.
And the bundled demo (`scripted:demo`: an edit, then a command importing
what it added), with agentls.el and with eglot alone: it completes only if
the accepted edit is on disk before the command runs. The answers are typed
on stdin, which is where Emacs in batch mode reads the minibuffer from.
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
    DEMO_EDITED,
    EDITORS,
    SHOUT,
    make_demo_workspace,
    make_workspace,
    run_editor,
    script_the_model,
)
from tests.e2e.lsp.test_lsp_runs import tool_result_text
from tests.fakes.anthropic_server import FakeAnthropic, turn

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
    typed = "once\napply\n"  # the command, the edit: no "Proceed?" of eglot's
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
    # the choices are in the prompt (no TAB needed) and start with different letters
    assert approval["prompt"] == (
        "agentls asks to use run_command: touch ran.txt — "
        "once, always (adds run_command(touch ran.txt)) or deny? "
    )
    assert approval["choices"] == ["once", "always", "deny"]
    assert approval.get("diff") is None
    assert review["prompt"] == "agentls: edit greet.py (+4 −0 lines)? apply or reject: "
    assert review["choices"] == ["apply", "reject"]
    assert "+def shout(name):" in review["diff"]  # the diff was on screen when asked
    # the real prompts, as Emacs printed them: one question per edit
    assert "agentls asks to use run_command: touch ran.txt" in outcome.stdout
    assert "Server wants to edit" not in outcome.stdout

    assert (root / "ran.txt").exists()  # the approved command ran
    assert report["buffer"] == SHOUT  # the edit landed in the buffer...
    assert report["modifiedBeforeSave"] is False  # ...and saved by agentls.el
    assert greet.read_text() == SHOUT

    assert report["result"]["terminalReason"] == "completed"
    assert report["result"]["text"] == ANSWER
    log = report["log"]
    assert ANSWER in log and "[completed · 3 turns · " in log
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
    # the command, the edit (diff in the prompt), "Proceed?"; then, asked in the
    # echo area, the person saves (C-x C-s), and Emacs asks nothing
    typed = "Allow once\nApply\ny\n"
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
    assert report["asked-to-save"] is True and report["modtimeOk"] is True
    assert "changed since visited or saved" not in outcome.stdout
    assert "agentls answered: " + ANSWER in outcome.stderr  # the last message, as eglot shows it
    transcript = Path(report["transcript"].removeprefix("file://")).read_text()
    assert ANSWER in transcript


def run_demo(root: Path, tmp_path: Path, model_env: dict[str, str], flow: str, typed: str):
    home = tmp_path / "home"
    home.mkdir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8", "PATH": path, "AGENTLS_EL_DIR": str(EDITORS / "emacs"),
           "AGENTLS_TEST_FLOW": flow}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"),
         "-l", str(HERE / "emacs_demo_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin=typed,
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["asked"] is True, (report, outcome.stderr[-3000:])
    return outcome, report


def test_emacs_agentls_el_runs_the_demo_with_the_edit_on_disk(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    greet = make_demo_workspace(root)
    before = greet.read_text()
    outcome, report = run_demo(root, tmp_path, model_env, "agentls.el", "apply\nonce\n")
    assert report["result"]["terminalReason"] == "completed", report["log"]
    # (inline code has no rule to remember: "always" is not offered)
    assert [p["choices"] for p in report["prompts"]] == [["apply", "reject"], ["once", "deny"]]
    assert "Server wants to edit" not in outcome.stdout  # one question per edit
    assert report["buffer"] == DEMO_EDITED and greet.read_text() == DEMO_EDITED
    assert report["modified"] is False and report["modtimeOk"] is True  # saved, no clash
    assert report["afterUndo"] == before  # Emacs's own undo takes the edit back
    log = report["log"]
    command = "python3 -B -c 'from greet import shout; print(shout(\"world\"))'"
    assert f"✓ run_command: {command} — HELLO, WORLD!\n" in log, log
    assert "[completed · 5 turns · " in log and "$" not in log  # no price for a script


def test_plain_eglot_runs_the_demo_with_the_edit_on_disk(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """eglot alone: asked in the echo area, the person saves the buffer eglot
    applied the edit to; the command runs after that save, and Emacs's view of
    the file's time stamp still holds (no question at the next save or edit)."""
    greet = make_demo_workspace(root)
    before = greet.read_text()
    # the review (its diff in the prompt), eglot's own "Proceed?", the command
    outcome, report = run_demo(root, tmp_path, model_env, "plain", "Apply\ny\nAllow once\n")
    assert "Apply it?" in outcome.stdout and "+def shout(name: str) -> str:" in outcome.stdout
    assert any("greet.py holds the accepted edit; save it to go on" in m for m in report["shown"])
    assert report["buffer"] == DEMO_EDITED and greet.read_text() == DEMO_EDITED
    assert report["modified"] is False and report["modtimeOk"] is True
    assert report["afterUndo"] == before


def test_plain_eglot_without_a_save_gets_the_file_written_and_asks_at_save(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """The truth when nobody saves: agentls writes the file once the wait is
    over (the command still sees the edit); Emacs then finds the file newer
    than its buffer (verify-visited-file-modtime fails: "changed since visited
    or saved. Save anyway?" at the next save)."""
    greet = make_demo_workspace(root)
    model_env = {**model_env, "AGENTLS_TEST_NO_SAVE": "1"}
    _, report = run_demo(root, tmp_path, model_env, "plain", "Apply\ny\nAllow once\n")
    assert any("wrote greet.py itself" in m for m in report["shown"]), report["shown"]
    assert report["buffer"] == DEMO_EDITED and greet.read_text() == DEMO_EDITED
    assert report["modified"] is True and report["modtimeOk"] is False
    transcript = Path(report["transcript"].removeprefix("file://")).read_text()
    assert "HELLO, WORLD!" in transcript and "completed" in transcript
    transcript = Path(report["transcript"].removeprefix("file://")).read_text()
    assert "HELLO, WORLD!" in transcript and "completed" in transcript


def test_agentls_el_saves_a_new_file_before_the_command(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    fake.add(
        turn(tool_calls=[("toolu_w", "write_file", {"path": "pkg/new.py", "content": "A = 1\n"})]),
        turn(tool_calls=[("toolu_c", "run_command", {"command": "cat pkg/new.py"})]),
        turn(ANSWER),
    )
    home = tmp_path / "home"
    home.mkdir()
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8"}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"), "-l", str(HERE / "emacs_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin="apply\nonce\n",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-2000:])
    assert report["result"]["terminalReason"] == "completed", report.get("log")
    assert (root / "pkg" / "new.py").read_text() == "A = 1\n", report.get("log")
    assert "A = 1" in tool_result_text(fake, 2)  # the command read the new file from disk


def test_agentls_el_quit_leaves_the_review_waiting(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """C-g on the review does not reject: it waits, and a code action answers it."""
    greet = make_demo_workspace(root)
    model_env = {**model_env, "AGENTLS_TEST_QUIT": "1"}
    typed = "agentls: Apply: edit greet.py (+4 −0 lines)\nonce\n"  # the code action, the command
    _, report = run_demo(root, tmp_path, model_env, "agentls.el", typed)
    assert report["quit"] is True
    assert "left waiting: answer it with M-x eglot-code-actions" in report["log"]
    assert report["result"]["terminalReason"] == "completed", report["log"]
    assert greet.read_text() == DEMO_EDITED
