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

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.editors.real_editor import (
    ANSWER,
    BACKGROUND,
    DEMO_EDITED,
    EDITORS,
    GREET,
    SHOUT,
    WAITING_COMMAND,
    make_demo_workspace,
    make_workspace,
    run_editor,
    script_a_background_command,
    script_the_model,
    slow_model,
    stalled_model,
)
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import tool_result_text

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


def test_emacs_log_shows_a_background_process_start_and_exit(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    script_a_background_command(fake)
    home = tmp_path / "home"
    home.mkdir()
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8"}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"), "-l", str(HERE / "emacs_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin="once\n",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert (root / "background.txt").read_text() == "from the background\n"
    log = report["log"]
    assert f"⚙ background p1 started: {BACKGROUND}" in log, log
    assert f"⚙ background p1 exited (exit code 0): {BACKGROUND}" in log, log


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
    approval, review = report["prompts"][:2]
    assert "agentls wants to use run_command" in approval["prompt"]
    assert "touch ran.txt" in approval["prompt"] and approval["diff"] is None
    # the file first, on a prompt that fits the minibuffer; the diff in its window
    assert review["prompt"] == ("[eglot] Server reports (type=2): agentls wants to edit greet.py "
                                "(+4 −0 lines). Apply it?\n(the diff is in *agentls diff*)\n"
                                "Choose an option: ")  # fmt: skip
    assert review["diff"].startswith("--- current/greet.py\n")
    assert "+def shout(name):" in review["diff"]
    assert "Server wants to edit" in outcome.stdout
    assert (root / "ran.txt").exists()
    assert report["buffer"] == SHOUT and greet.read_text() == SHOUT
    assert report["asked-to-save"] is True and report["modtimeOk"] is True
    assert "changed since visited or saved" not in outcome.stdout
    assert "agentls answered: " + ANSWER in outcome.stderr  # the last message, as eglot shows it
    transcript = Path(report["transcript"].removeprefix("file://")).read_text()
    assert ANSWER in transcript


def test_emacs_eglot_alone_c_g_answers_no_at_once(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """eglot-plain.el: C-g at the approval and at the review answers Deny and
    Reject at once (said in the echo area); the run goes on and completes."""
    greet = make_workspace(root)
    script_the_model(fake)  # a command, then an edit, then the answer
    home = tmp_path / "home"
    home.mkdir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8", "PATH": path, "AGENTLS_EL_DIR": str(EDITORS / "emacs"),
           "AGENTLS_TEST_QUIT": "1"}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-l", str(HERE / "emacs_plain_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["finished"] is True, outcome.stderr[-3000:]
    assert [p["prompt"].count("agentls wants to") for p in report["prompts"]] == [1, 1]
    assert "agentls: C-g answered no: Deny (the call does not run)" in outcome.stderr
    assert "agentls: C-g answered no: Reject (the edit is not made)" in outcome.stderr
    assert not (root / "ran.txt").exists() and greet.read_text() == GREET
    assert "denied" in tool_result_text(fake, 1) and "rejected" in tool_result_text(fake, 2)
    assert "agentls answered: " + ANSWER in outcome.stderr


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
    _, report = run_demo(root, tmp_path, model_env, "plain", "Apply\ny\nAllow once\n")
    review = report["prompts"][0]
    assert "agentls wants to edit greet.py (+4 −0 lines). Apply it?" in review["prompt"]
    assert "+def shout(name: str) -> str:" in review["diff"]  # in its window
    assert any("greet.py holds the accepted edit; save it to go on" in m for m in report["shown"])
    assert report["buffer"] == DEMO_EDITED and greet.read_text() == DEMO_EDITED
    assert report["modified"] is False and report["modtimeOk"] is True
    assert report["afterUndo"] == before


def test_plain_eglot_without_a_key_says_what_works_and_it_does(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """eglot-plain.el as written, no key: the ask fails saying to set the model
    in the settings file; the person does, asks again, and the demo runs."""
    greet = make_demo_workspace(root)
    model_env = {k: v for k, v in model_env.items() if not k.startswith("ANTHROPIC_")}
    env = {**model_env, "AGENTLS_TEST_NO_KEY": "1"}
    _, report = run_demo(root, tmp_path, env, "plain", "Apply\ny\nAllow once\n")
    said = report["noKey"]
    assert "no Anthropic API key" in said and '"scripted:demo"' in said, said
    assert "~/.config/agentls/settings.json" in said
    assert "restart the server (M-x eglot-reconnect)" in said
    assert greet.read_text() == DEMO_EDITED  # the model the settings file names ran
    transcript = Path(report["transcript"].removeprefix("file://")).read_text()
    assert "HELLO, WORLD!" in transcript and "completed" in transcript


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


def run_status(root: Path, tmp_path: Path, model_env: dict[str, str], flow: str, model: str,
               typed: str = ""):  # fmt: skip
    home = tmp_path / "home"
    home.mkdir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8", "PATH": path, "AGENTLS_TEST_FLOW": flow,
           "AGENTLS_TEST_MODEL": model}  # fmt: skip
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"),
         "-l", str(HERE / "emacs_status_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin=typed,
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    return report


def test_agentls_el_shows_what_the_run_does_while_it_waits(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """A model that pauses and a command that runs until released: the mode line
    and the last line of *agentls* say thinking, waiting for you, running (the
    seconds going up), thinking again; nothing once the run is over."""
    make_workspace(root)
    report = run_status(root, tmp_path, model_env, "working", slow_model(tmp_path), "once\n")
    thinking, asked, running = report["thinking"], report["asked"], report["running"]
    assert "[agentls: thinking (" in thinking["modeLine"], thinking
    assert thinking["logLine"].startswith("… thinking ("), thinking
    assert f"agentls: waiting for you: run_command: {WAITING_COMMAND}"[:50] in asked["modeLine"]
    assert asked["logLine"].startswith(f"… waiting for you: run_command: {WAITING_COMMAND} (")
    assert "[agentls: running run_command: while" in running["modeLine"], running
    seconds = re.fullmatch(rf"… running run_command: {re.escape(WAITING_COMMAND)} \((\d+) s\)",
                           running["logLine"])  # fmt: skip
    assert seconds and int(seconds.group(1)) >= 2, running  # it counts while the command runs
    again = report["thinkingAgain"]
    assert "[agentls: thinking (" in again["modeLine"] and again["logLine"].startswith("… thinking")
    assert report["finished"] is True, report["log"]
    assert "agentls:" not in report["after"]["modeLine"], report["after"]
    assert report["after"]["logLine"].startswith("[completed · 2 turns · "), report["log"]
    assert f"✓ run_command: {WAITING_COMMAND} — released" in report["log"]
    assert "… " not in report["log"].replace("… left waiting", "")  # no status line left


def test_agentls_el_cancels_from_the_code_action_and_the_doctor_finds_the_workspace(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """'agentls: Cancel the run' (eglot sends its `[{}]` back as `[null]`) ends the
    run; then, from the transcript, M-x agentls-doctor reports on the project and
    names the agentls.el it runs in."""
    make_workspace(root)
    typed = "agentls: Cancel the run\n"
    report = run_status(root, tmp_path, model_env, "cancel", stalled_model(tmp_path), typed)
    assert report["finished"] is True, report["log"]
    assert report["result"]["terminalReason"] == "aborted", report["log"]
    assert "✗" not in report["log"], report["log"]  # no error answered the command
    assert "agentls:" not in report["after"]["modeLine"]
    assert "/transcripts/" in report["focus"]
    doctor = report["doctor"]
    assert re.search(rf"^workspace +{re.escape(str(root.resolve()))}/?$", doctor, re.M), doctor
    here = f"emacs 0.1.0 ({EDITORS / 'emacs'}, loaded here)"
    assert re.search(rf"^editors +{re.escape(here)}$", doctor, re.M), doctor
    assert "no agentls editor client found" not in doctor


def test_agentls_el_rewinds_and_forks_from_a_pick_list(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    (root / "a.py").write_text("A = 1\n")
    fake.add(
        turn(tool_calls=[("toolu_a1", "edit_file",
                          {"path": "a.py", "old_text": "A = 1", "new_text": "A = 2"})]),
        turn("answer 1"),
        turn(tool_calls=[("toolu_b1", "run_command", {"command": "echo made > made.txt"})]),
        turn("answer 2"),
        turn("answer 4"),
        turn("answer forked"),
    )  # fmt: skip
    home = tmp_path / "home"
    home.mkdir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8", "PATH": path}  # fmt: skip
    typed = "2: second: make made.txt\nrewind\n2: second: make made.txt\n"
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"),
         "-l", str(HERE / "emacs_rewind_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin=typed,
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["results"] == ["completed"] * 4, report.get("log")
    picked, confirmed, forked = report["prompts"]
    assert picked["choices"] == ["1: first: set A to 2", "2: second: make made.txt"]
    assert "would take back ask 2 “second: make made.txt”" in confirmed["prompt"]
    assert "remove made.txt" in confirmed["prompt"]
    assert confirmed["choices"] == ["rewind", "conversation", "files"]
    assert report["madeBefore"] is True and report["madeAfter"] is False
    assert report["rewind"]["asks"] == [2] and report["rewind"]["removed"] == ["made.txt"]
    assert "↶ rewound to before ask 2: took back ask 2" in report["log"]
    assert forked["choices"][:3] == ["whole session", "1: first: set A to 2",
                                     "2: second: make made.txt"]  # fmt: skip
    assert report["fork"] != report["session"] and "⑂ forked" in report["log"]
    for body, prompt in ((fake.requests[-2].body, "fourth"), (fake.requests[-1].body, "forked")):
        texts = json.dumps(body["messages"])
        assert "first: set A to 2" in texts and prompt in texts
        assert "second: make made.txt" not in texts and "toolu_b1" not in texts
    assert (root / "a.py").read_text() == "A = 2\n"
    assert outcome.returncode == 0


def test_agentls_el_completes_asks_with_and_lists_prompt_commands(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    commands = root / ".agentls" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 for $2.\n"
    )
    (commands / "release-notes.md").write_text("Write release notes.\n")
    home = tmp_path / "home"
    home.mkdir()
    env = {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8"}  # fmt: skip
    fake.add(turn("Reviewed."))
    outcome = run_editor(
        ["emacs", "--batch", "-L", str(EDITORS / "emacs"),
         "-l", str(HERE / "emacs_commands_person.el")],
        cwd=root, env=env, report=tmp_path / "report.json", stdin="/review\ngreet.py speed\n",
    )  # fmt: skip
    report = outcome.report
    assert report, f"no report\n{outcome.stdout}\n{outcome.stderr}"
    assert report["errors"] == [], (report["errors"], outcome.stderr[-3000:])
    assert report["connected"], outcome.stderr[-3000:]
    assert report["completed"] == ["/release-notes", "/review"]
    assert report["annotation"] == " FILE — Review a file"
    assert report["notFirstWord"] is False
    assert report["asked"] is True, (report.get("log"), outcome.stderr[-3000:])
    assert report["result"]["terminalReason"] == "completed"
    sent = fake.requests[0].body["messages"][0]["content"]
    assert sent[0]["text"] == "Review greet.py for speed.\n\n(The person is looking at greet.py.)"
    assert report["listed"] is True
    assert "  /review FILE — Review a file (.agentls/commands/review.md)" in report["log"]
