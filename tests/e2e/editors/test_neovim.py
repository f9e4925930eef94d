"""Neovim (Debian 12 ships 0.7.2), headless, with editors/neovim or alone, against agentls serve.

The whole flow a person goes through: :AgentAsk -> allow the command ->
the diff in a split, then Apply -> the answer in the log buffer; then the
buffer, the file on disk and what the model was sent are checked. And the
bundled demo (`scripted:demo`: an edit, then a command importing what it
added), with the plugin and without: it completes only if the accepted edit
is on disk before the command runs.
"""

from __future__ import annotations

import shutil
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


def test_neovim_plugin_escape_leaves_the_review_waiting(
    root: Path, model_env: dict[str, str], tmp_path: Path
) -> None:
    """Esc on the review does not reject: the question waits as a code action."""
    make_demo_workspace(root)
    env = {**isolated_env(model_env, tmp_path), "AGENTLS_TEST_ESC": "1"}
    report = run_demo(root, env, tmp_path, "plugin")
    assert report["escaped"] is True
    assert "left waiting: answer it with a code action" in report["log"]
    menu = [p for p in report["prompts"] if any("agentls: Apply" in c for c in p["choices"])]
    assert menu, report["prompts"]  # answered from vim.lsp.buf.code_action()
    assert report["result"]["terminalReason"] == "completed", report["log"]
    assert report["disk"] == DEMO_EDITED


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
