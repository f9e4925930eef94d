"""Neovim (Debian 12 ships 0.7.2), headless, with editors/neovim or alone, against agentls serve.

The whole flow a person goes through: :AgentAsk -> allow the command ->
the diff in a split, then Apply -> the answer in the log buffer; then the
buffer, the file on disk and what the model was sent are checked. And the
bundled demo (`scripted:demo`: an edit, then a command importing what it
added), with the plugin and without: it completes only if the accepted edit
is on disk before the command runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
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
)
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import tool_result_text

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed")
HERE = Path(__file__).parent


def test_neovim_log_shows_a_background_process_start_and_exit(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    script_a_background_command(fake)
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
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert (root / "background.txt").read_text() == "from the background\n"
    log = report["log"]
    assert f"⚙ background p1 started: {BACKGROUND}" in log, log
    assert f"⚙ background p1 exited (exit code 0): {BACKGROUND}" in log, log


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
    assert report["modified_before_save"] is False  # ...and saved by the plugin
    assert greet.read_text() == SHOUT

    assert report["result"]["terminalReason"] == "completed"
    assert report["result"]["text"] == ANSWER
    log = report["log"]
    assert ANSWER in log and "[completed · 3 turns · " in log
    assert "→ run_command: touch ran.txt" in log and "✓ applied to greet.py" in log
    assert len(fake.requests) == 3
    assert outcome.returncode == 0


def isolated_env(model_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {**model_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data")}  # fmt: skip


def run_demo(root: Path, env: dict[str, str], tmp_path: Path, flow: str) -> dict:
    argv = ["nvim", "--headless", "--clean"]
    if flow == "plugin":
        argv += ["--cmd", f"set rtp^={EDITORS / 'neovim'}"]
    argv += ["-c", f"luafile {HERE / 'nvim_demo_person.lua'}"]
    outcome = run_editor(
        argv, cwd=root, env={**env, "AGENTLS_TEST_FLOW": flow}, report=tmp_path / "report.json"
    )
    report = outcome.report
    assert report, f"no report\n{outcome.stdout}\n{outcome.stderr}"
    assert report["errors"] == [], report["errors"]
    assert report["asked"] is True, report.get("log")
    return report


def test_neovim_plugin_runs_the_demo_with_the_edit_on_disk(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    greet = make_demo_workspace(root)
    before = greet.read_text()
    report = run_demo(root, isolated_env(model_env, tmp_path), tmp_path, "plugin")
    assert report["result"]["terminalReason"] == "completed", report["log"]
    assert report["buffer"] == DEMO_EDITED and report["disk"] == DEMO_EDITED
    assert report["modified"] is False  # saved by the plugin, before the command ran
    assert report["warning"] == "" and "W1" not in report["messages"]  # no "changed on disk"
    assert report["changed_on_disk"] == ""
    assert report["after_undo"] == before  # Neovim's own undo takes the edit back
    # :AgentUndo (Undo last ask) after a redo: buffer and disk back as they were
    assert report["modified_after_redo"] is False and report["agent_undone"] is True
    assert "↶ undo last ask: 1 file(s) put back" in report["log"]
    assert report["buffer_after_agent_undo"] == before, report["log"]
    assert report["disk_after_agent_undo"] == before
    log = report["log"]
    command = "python3 -B -c 'from greet import shout; print(shout(\"world\"))'"
    assert f"✓ run_command: {command} — HELLO, WORLD!\n" in log, log
    assert "[completed · 5 turns · " in log and "$" not in log  # no price for a script


def test_neovim_plugin_escape_answers_no_at_once_and_says_so(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """Esc at the approval and at the review: Deny and Reject at once, said in the
    log; nothing runs or changes, and the run completes without waiting."""
    greet = make_workspace(root)
    script_the_model(fake)  # a command, then an edit, then the answer
    env = {**isolated_env(model_env, tmp_path), "AGENTLS_TEST_ESC": "1"}
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_person.lua'}"],
        cwd=root, env=env, report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-2000:])
    assert report["asked"] is True and report["result"]["terminalReason"] == "completed"
    log = report["log"]
    assert "  → dismissed, so: Deny (the call does not run)\n" in log, log
    assert "  → dismissed, so: Reject (the edit is not made)\n" in log, log
    assert "agentls: dismissed, so: Reject (the edit is not made)" in report["notified"]
    assert "left waiting" not in log
    assert not (root / "ran.txt").exists() and greet.read_text() == GREET
    assert "denied" in tool_result_text(fake, 1) and "rejected" in tool_result_text(fake, 2)


def test_plain_neovim_runs_the_demo_with_the_edit_on_disk(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """No plugin: asked in one line, the person saves (`:w`) the buffer Neovim
    applied the edit to; the command runs after that save, and Neovim has no
    "changed on disk" question, at `:checktime` or later."""
    greet = make_demo_workspace(root)
    before = greet.read_text()
    report = run_demo(root, isolated_env(model_env, tmp_path), tmp_path, "plain")
    assert report["result"]["terminalReason"] == "completed", report
    review, approval = report["prompts"]
    assert "Apply it?" in review["prompt"] and "+def shout(name: str) -> str:" in review["prompt"]
    assert "python3 -B -c" in approval["prompt"]
    # no rule could cover an inline script: no "Always allow" (nor an empty rule)
    assert "Always allow" not in approval["prompt"]
    assert not any("Always allow" in c for c in approval["choices"]), approval["choices"]
    assert any("greet.py holds the accepted edit; save it to go on" in m for m in report["shown"])
    assert report["buffer"] == DEMO_EDITED and greet.read_text() == DEMO_EDITED
    assert report["modified"] is False  # saved by Neovim itself, so...
    assert report["changed_on_disk"] == ""  # ...no W12 at :checktime, no question at :w
    assert report["after_undo"] == before


def test_plain_neovim_undo_last_ask_waits_for_the_save(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """No plugin, edit accepted and saved; then Undo last ask (`agentls.undo`):
    the buffer goes back through applyEdit, the person is asked in one line to
    save it, and after `:w` buffer and disk hold the old text, with no conflict
    at `:checktime` (the file was not written behind the buffer)."""
    greet = make_demo_workspace(root)
    before = greet.read_text()
    env = {**isolated_env(model_env, tmp_path), "AGENTLS_TEST_AGENT_UNDO": "1"}
    report = run_demo(root, env, tmp_path, "plain")
    assert report["result"]["terminalReason"] == "completed", report
    assert report["changed_on_disk"] == ""  # the edit itself went through :w
    assert report["agent_undone"] is True, report
    asked = [m for m in report["shown_after_undo"] if "holds the undo; save it" in m]
    assert asked, report["shown_after_undo"]
    assert not any("wrote greet.py itself" in m for m in report["shown_after_undo"])
    assert report["buffer_after_agent_undo"] == before
    assert report["disk_after_agent_undo"] == before and greet.read_text() == before
    assert report["changed_on_disk_after_agent_undo"] == ""  # no W12 conflict


def test_plain_neovim_without_a_save_gets_the_file_written_and_warns(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """The truth when nobody saves: agentls writes the file once the wait is
    over (the command still sees the edit), and Neovim then finds a conflict
    (W12 at :checktime; "changed since reading it" at :w)."""
    greet = make_demo_workspace(root)
    env = {**isolated_env(model_env, tmp_path), "AGENTLS_TEST_NO_SAVE": "1"}
    report = run_demo(root, env, tmp_path, "plain")
    assert report["result"]["terminalReason"] == "completed", report
    assert any("wrote greet.py itself" in m for m in report["shown"]), report["shown"]
    assert report["buffer"] == DEMO_EDITED and greet.read_text() == DEMO_EDITED
    assert report["modified"] is True and report["changed_on_disk"] == "conflict"


def test_neovim_plugin_saves_a_new_file_before_the_command(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    fake.add(
        turn(tool_calls=[("toolu_w", "write_file", {"path": "pkg/new.py", "content": "A = 1\n"})]),
        turn(tool_calls=[("toolu_c", "run_command", {"command": "cat pkg/new.py"})]),
        turn(ANSWER),
    )
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_person.lua'}"],
        cwd=root, env=isolated_env(model_env, tmp_path), report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-2000:])
    assert report["result"]["terminalReason"] == "completed", report.get("log")
    assert (root / "pkg" / "new.py").exists(), report["log"]
    assert (root / "pkg" / "new.py").read_text() == "A = 1\n"
    assert "A = 1" in tool_result_text(fake, 2)  # the command read the new file from disk


def run_status(root: Path, env: dict[str, str], tmp_path: Path, flow: str, model: str) -> dict:
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_status_person.lua'}"],
        cwd=root, env={**env, "AGENTLS_TEST_FLOW": flow, "AGENTLS_TEST_MODEL": model},
        report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-2000:])
    return report


def test_neovim_plugin_shows_what_the_run_does_while_it_waits(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """A model that pauses and a command that runs until released: the log's last
    line, its window's status line and status() say thinking, waiting for you,
    running (the seconds going up), thinking again; nothing once it is over."""
    make_workspace(root)
    report = run_status(root, isolated_env(model_env, tmp_path), tmp_path, "working",
                        slow_model(tmp_path))  # fmt: skip
    thinking, asked, running = report["thinking"], report["asked"], report["running"]
    assert thinking["status"].startswith("agentls: thinking ("), thinking
    assert thinking["logLine"].startswith("… thinking ("), thinking
    assert thinking["statusLine"].startswith("agentls: thinking ("), thinking
    waiting = f"waiting for you: run_command: {WAITING_COMMAND} ("
    assert asked["status"].startswith(f"agentls: {waiting}"), asked
    assert asked["logLine"].startswith(f"… {waiting}"), asked
    seconds = re.fullmatch(rf"… running run_command: {re.escape(WAITING_COMMAND)} \((\d+) s\)",
                           running["logLine"])  # fmt: skip
    assert seconds and int(seconds.group(1)) >= 2, running  # it counts while the command runs
    # as wide as the window (80 columns) at most: what it runs is cut, the seconds are not
    shown = running["statusLine"]
    assert re.fullmatch(r"agentls: running run_command: while .*… \(\d+ s\)", shown), shown
    assert len(shown) <= 80, shown
    again = report["thinkingAgain"]
    assert again["status"].startswith("agentls: thinking (") and again["logLine"].startswith("… ")
    assert report["finished"] is True, report["log"]
    assert report["after"]["status"] == "" and report["after"]["statusLine"] == "agentls log"
    assert report["after"]["logLine"].startswith("[completed · 2 turns · "), report["log"]
    assert f"✓ run_command: {WAITING_COMMAND} — released" in report["log"]
    assert "\n… " not in report["log"]  # no status line left behind


def test_neovim_plugin_restarts_the_server_the_no_key_error_names(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """No key: the ask fails naming :AgentRestart; with the key set in Neovim,
    :AgentRestart and the same ask completes."""
    make_workspace(root)
    fake.add(turn(ANSWER))
    env = {k: v for k, v in isolated_env(model_env, tmp_path).items() if k != "ANTHROPIC_API_KEY"}
    report = run_status(root, env, tmp_path, "restart", "anthropic:claude-sonnet-4-5")
    assert "no Anthropic API key" in report["failed"], report["failed"]
    assert "restart the server (:AgentRestart)" in report["failed"]
    assert any("restart the server (:AgentRestart)" in m for m in report["notified"])
    assert "agentls: server restarted" in report["notified"]
    assert report["finished"] is True, report.get("log")
    assert report["result"]["terminalReason"] == "completed" and ANSWER in report["log"]
    assert len(fake.requests) == 1


def run_plain_config(root: Path, env: dict[str, str], tmp_path: Path) -> dict:
    """Neovim with editors/neovim/without-plugin.lua as its init.lua, `agentls` on PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    outcome = run_editor(
        ["nvim", "--headless", "-u", str(EDITORS / "neovim" / "without-plugin.lua"),
         "-c", f"luafile {HERE / 'nvim_plain_person.lua'}"],
        cwd=root, env={**env, "PATH": path}, report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-2000:])
    assert report["attached"] is True and report["finished"] is True, report
    return report


def test_neovim_without_the_plugin_as_the_guide_writes_it(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """The guide's configuration, as written: :Agentls asks, Neovim's own prompts
    allow the command and apply the edit, the person saves when asked; then
    :AgentlsTranscript opens the transcript, which 0.7 cannot show by itself."""
    greet = make_workspace(root)
    script_the_model(fake)
    report = run_plain_config(root, isolated_env(model_env, tmp_path), tmp_path)
    approval, review = report["prompts"]
    assert "touch ran.txt" in approval["prompt"] and approval["choices"][1] == "1. Allow once"
    assert "Apply it?" in review["prompt"] and review["choices"][1] == "1. Apply"
    assert (root / "ran.txt").exists()
    assert report["buffer"] == SHOUT and greet.read_text() == SHOUT and not report["modified"]
    assert "agentls answered: " + ANSWER in report["shown"]
    assert "/transcripts/" in report["window"] and ANSWER in report["transcript"]


def test_neovim_without_the_plugin_says_a_dismissed_question_is_a_no(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    greet = make_workspace(root)
    script_the_model(fake)
    env = {**isolated_env(model_env, tmp_path), "AGENTLS_TEST_ESC": "1"}
    report = run_plain_config(root, env, tmp_path)
    assert report["notified"] == [
        "agentls: dismissed, so: Deny (the call does not run)",
        "agentls: dismissed, so: Reject (the edit is not made)",
    ]
    assert not (root / "ran.txt").exists() and greet.read_text() == GREET
    assert "agentls answered: " + ANSWER in report["shown"]


def test_neovim_plugin_rewinds_and_forks_from_a_pick_list(
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
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_rewind_person.lua'}"],
        cwd=root, env=isolated_env(model_env, tmp_path), report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report and report["errors"] == [], (report, outcome.stderr[-3000:])
    assert report["results"] == ["completed"] * 4, report.get("log")
    picked, confirmed, forked = report["prompts"]
    assert picked["choices"] == ["Ask 1: first: set A to 2", "Ask 2: second: make made.txt"]
    assert "would take back ask 2 “second: make made.txt”" in confirmed["prompt"]
    assert "remove made.txt" in confirmed["prompt"]
    assert confirmed["choices"][0] == "Rewind"
    assert report["made_before"] is True and report["made_after"] is False
    assert report["rewind"]["asks"] == [2] and report["rewind"]["removed"] == ["made.txt"]
    assert "↶ rewound to before ask 2: took back ask 2" in report["log"]
    assert forked["choices"][:3] == ["The whole session", "Before Ask 1: first: set A to 2",
                                     "Before Ask 2: second: make made.txt"]  # fmt: skip
    assert report["fork"] != report["session"] and "⑂ forked" in report["log"]
    fourth, in_fork = fake.requests[-2].body, fake.requests[-1].body
    for body, prompt in ((fourth, "fourth"), (in_fork, "forked")):
        texts = json.dumps(body["messages"])
        assert "first: set A to 2" in texts and prompt in texts
        assert "second: make made.txt" not in texts and "toolu_b1" not in texts
    assert (root / "a.py").read_text() == "A = 2\n"  # ask 1's edit stays
    assert outcome.returncode == 0


def test_neovim_plugin_completes_asks_with_and_lists_prompt_commands(
    fake: FakeAnthropic, root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    make_workspace(root)
    review = root / ".agentls" / "commands" / "review.md"
    review.parent.mkdir(parents=True)
    review.write_text(
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 for $2.\n"
    )
    (root / ".agentls" / "commands" / "release-notes.md").write_text("Write release notes.\n")
    env = isolated_env(model_env, tmp_path)
    mine = Path(env["XDG_CONFIG_HOME"]) / "agentls" / "commands" / "mine.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("The person's own.\n")
    fake.add(turn("Reviewed."))
    outcome = run_editor(
        ["nvim", "--headless", "--clean", "--cmd", f"set rtp^={EDITORS / 'neovim'}",
         "-c", f"luafile {HERE / 'nvim_commands_person.lua'}"],
        cwd=root, env=env, report=tmp_path / "report.json",
    )  # fmt: skip
    report = outcome.report
    assert report, f"no report\n{outcome.stdout}\n{outcome.stderr}"
    assert report["errors"] == [], report["errors"]
    assert report["completed"] == ["/release-notes", "/review"]
    assert report["all"] == ["/mine", "/release-notes", "/review"]
    assert report["second_word"] == []  # only the first word names a command
    assert report["asked"] is True and report["result"]["terminalReason"] == "completed"
    sent = fake.requests[0].body["messages"][0]["content"]
    assert sent[0]["text"] == "Review greet.py for speed.\n\n(The person is looking at greet.py.)"
    assert report["listed"] is True
    log = report["log"]
    assert "  /review FILE — Review a file (.agentls/commands/review.md)" in log
    assert f"  /mine — The person's own. ({mine})" in log
