"""Checkpoints, undo, resume after a crash, replay, and outside changes, through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.helpers import script, wait_until
from tests.processes import processes_with

GIT = ["git", "-c", "user.email=p@example.com", "-c", "user.name=Person"]


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"name": "edit_file", "input": {"path": path, "old_text": old, "new_text": new}}


def command(text: str) -> dict[str, Any]:
    return {"name": "run_command", "input": {"command": text}}


@pytest.fixture
def repo(workspace: Path) -> Path:
    (workspace / "a.py").write_text("A = 1\n")
    (workspace / "b.py").write_text("B = 1\n")
    (workspace / "mine.txt").write_text("the person's file\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=workspace, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=workspace, check=True)
    subprocess.run([*GIT, "commit", "-qm", "start"], cwd=workspace, check=True)
    return workspace


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def two_edits_and_a_command(tmp_path: Path) -> str:
    return script(tmp_path, [
        {"toolCalls": [{"name": "read_file", "input": {"path": "a.py"}},
                       {"name": "read_file", "input": {"path": "b.py"}}]},
        {"toolCalls": [edit("a.py", "A = 1", "A = 2"), edit("b.py", "B = 1", "B = 2"),
                       command("echo generated > c.txt")]},
        {"text": "Changed a.py and b.py, and made c.txt."},
    ])  # fmt: skip


def test_a_turn_with_edits_and_a_command_is_undone_exactly(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    subprocess.run([*GIT, "stash", "list"], cwd=repo, check=True)
    head, index = git(repo, "rev-parse", "HEAD"), (repo / ".git" / "index").read_bytes()
    proc = cli.run("ask", "change things", "--model", two_edits_and_a_command(tmp_path), "--yes")
    assert proc.returncode == 0, proc.stderr
    assert (repo / "c.txt").exists() and (repo / "a.py").read_text() == "A = 2\n"
    (repo / "mine.txt").write_text("the person's file, edited meanwhile\n")
    session = cli.session_files()[0].stem

    undo = cli.run("undo", session)
    assert undo.returncode == 0, undo.stderr
    assert "restored a.py, b.py" in undo.stdout and "removed c.txt" in undo.stdout
    assert (repo / "a.py").read_text() == "A = 1\n" and (repo / "b.py").read_text() == "B = 1\n"
    assert not (repo / "c.txt").exists()
    assert (repo / "mine.txt").read_text() == "the person's file, edited meanwhile\n"
    # nothing of ours in the person's repository
    assert git(repo, "rev-parse", "HEAD") == head
    assert (repo / ".git" / "index").read_bytes() == index
    assert git(repo, "stash", "list") == ""
    assert git(repo, "log", "--all", "--oneline").count("\n") == 1
    assert git(repo, "for-each-ref") == git(repo, "for-each-ref", "refs/heads")

    again = cli.run("undo", session)
    assert again.returncode == 2 and "undone already" in again.stderr
    shown = cli.run("show", session).stdout
    assert f"agentls undo {session} --turn 1" in shown and "Undid turn 1" in shown


def test_undo_puts_back_the_whole_last_ask_then_the_ask_before(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    first = script(tmp_path, [{"toolCalls": [edit("b.py", "B = 1", "B = 5")]}, {"text": "ok"}],
                   "first.json")  # fmt: skip
    assert cli.run("ask", "first", "--model", first, "--yes").returncode == 0
    session = cli.session_files()[0].stem
    second = script(tmp_path, [
        {"toolCalls": [edit("a.py", "A = 1", "A = 2")]},
        {"toolCalls": [command("cat a.py > copy.txt")]},
        {"text": "Changed a.py, then copied it."},
    ], "second.json")  # fmt: skip
    proc = cli.run("ask", "second", "--model", second, "--yes", "--session", session)
    assert proc.returncode == 0, proc.stderr
    assert (repo / "copy.txt").read_text() == "A = 2\n"

    undo = cli.run("undo", session)
    assert undo.returncode == 0, undo.stderr
    assert "the ask “second” (turns 2 and 3)" in undo.stdout
    assert "restored a.py" in undo.stdout and "removed copy.txt" in undo.stdout
    assert (repo / "a.py").read_text() == "A = 1\n" and not (repo / "copy.txt").exists()
    assert (repo / "b.py").read_text() == "B = 5\n"  # the ask before is kept

    before = cli.run("undo", session)  # again: the ask before
    assert before.returncode == 0 and "the ask “first” (turn 1)" in before.stdout
    assert (repo / "b.py").read_text() == "B = 1\n"
    done = cli.run("undo", session)
    assert done.returncode == 2 and "undone already" in done.stderr


def test_undo_of_an_ask_stops_at_a_file_changed_since(cli: Cli, repo: Path, tmp_path: Path) -> None:
    model = script(tmp_path, [
        {"toolCalls": [edit("a.py", "A = 1", "A = 2")]},
        {"toolCalls": [command("echo made > new.txt")]},
        {"text": "ok"},
    ])  # fmt: skip
    assert cli.run("ask", "two turns", "--model", model, "--yes").returncode == 0
    (repo / "a.py").write_text("A = 2\nPERSON = 1\n")
    session = cli.session_files()[0].stem
    undo = cli.run("undo", session)
    assert undo.returncode == 1 and "a.py" in undo.stdout and "Nothing was undone" in undo.stdout
    assert (repo / "new.txt").exists()  # not half undone
    one = cli.run("undo", session, "--turn", "2")  # the per-step form still works
    assert one.returncode == 0 and "undid turn 2: removed new.txt" in one.stdout
    assert (repo / "a.py").read_text() == "A = 2\nPERSON = 1\n"


def test_an_undo_meeting_the_persons_change_stops(cli: Cli, repo: Path, tmp_path: Path) -> None:
    cli.run("ask", "change things", "--model", two_edits_and_a_command(tmp_path), "--yes")
    (repo / "b.py").write_text("B = 2\nPERSON = True\n")
    session = cli.session_files()[0].stem
    undo = cli.run("undo", session, "--turn", "1")
    assert undo.returncode == 1
    assert "b.py" in undo.stdout and "Nothing was undone" in undo.stdout
    assert (repo / "a.py").read_text() == "A = 2\n"  # not half undone
    assert (repo / "b.py").read_text() == "B = 2\nPERSON = True\n"
    assert (repo / "c.txt").exists()
    assert cli.run("undo", session, "--turn", "7").returncode == 2


def test_a_workspace_that_is_not_a_git_repository(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.py").write_text("A = 1\n")
    model = script(tmp_path, [{"toolCalls": [edit("a.py", "A = 1", "A = 3")]}, {"text": "ok"}])
    assert cli.run("ask", "edit", "--model", model, "--yes").returncode == 0
    assert not (workspace / ".git").exists()
    assert cli.run("undo", cli.session_files()[0].stem).returncode == 0
    assert (workspace / "a.py").read_text() == "A = 1\n"


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_undo_across_a_link_out_restores_the_rest_and_names_what_it_refused(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.py").write_text("OUTSIDE = 1\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "a.py").write_text("S = 1\n")
    (repo / "top.py").write_text("T = 1\n")
    outside_before = tree(outside)
    model = script(tmp_path, [
        {"toolCalls": [{"name": "read_file", "input": {"path": "sub/a.py"}},
                       {"name": "read_file", "input": {"path": "top.py"}}]},
        {"toolCalls": [edit("sub/a.py", "S = 1", "S = 2"), edit("top.py", "T = 1", "T = 2")]},
        {"toolCalls": [command(f"rm -rf sub && ln -s {outside} sub")]},
        {"text": "Moved sub out."},
    ])  # fmt: skip
    asked = cli.run("ask", "edit, then link sub out", "--model", model, "--yes")
    assert asked.returncode == 0, asked.stderr
    assert (repo / "sub").is_symlink() and (repo / "top.py").read_text() == "T = 2\n"
    session = cli.session_files()[0].stem

    undo = cli.run("undo", session)
    assert undo.returncode == 1, undo.stdout + undo.stderr  # not everything was undone
    assert "Traceback" not in undo.stdout + undo.stderr
    assert "restored top.py" in undo.stdout
    assert "refused sub, sub/a.py: a link now leads out of the workspace" in undo.stdout
    assert (repo / "top.py").read_text() == "T = 1\n"
    assert tree(outside) == outside_before and sorted(p.name for p in outside.iterdir()) == ["a.py"]
    assert os.readlink(repo / "sub") == str(outside)  # left as it is
    (logged,) = [e for e in cli.events() if e["kind"] == "undo"]
    assert logged["refused"] == ["sub", "sub/a.py"] and logged["restored"] == ["top.py"]
    assert logged["done"] is True  # the ask counts as undone: the next undo is the one before
    again = cli.run("undo", session)
    assert again.returncode == 2 and "undone already" in again.stderr
    shown = cli.run("show", session)
    assert "Not undone (a link leads out): sub, sub/a.py" in shown.stdout


MARKER = "sleep 731.5"


def test_crash_mid_turn_then_resume_then_undo(cli: Cli, repo: Path, tmp_path: Path) -> None:
    model = script(tmp_path, [
        {"toolCalls": [edit("a.py", "A = 1", "A = 9"), command(f"echo half > d.txt; {MARKER}")]},
    ])  # fmt: skip
    proc = cli.popen("ask", "slow work", "--model", model, "--yes")
    try:
        wait_until(lambda: bool(processes_with(MARKER)), what="the command to be running")
    finally:
        proc.kill()  # kill -9 mid-turn
        proc.wait()
        for pid in processes_with(MARKER):
            subprocess.run(["kill", "-9", str(pid)], check=False)
    session = cli.session_files()[0].stem
    assert (repo / "a.py").read_text() == "A = 9\n" and (repo / "d.txt").exists()

    resume = script(tmp_path, [{"text": "Resumed."}], "resume.json")
    again = cli.run("ask", "go on", "--session", session, "--model", resume)
    assert again.returncode == 0 and "Resumed." in again.stdout
    undo = cli.run("undo", session)
    assert undo.returncode == 0, undo.stderr
    assert (repo / "a.py").read_text() == "A = 1\n" and not (repo / "d.txt").exists()
    events = [json.loads(line) for line in cli.session_files()[0].read_text().splitlines()]
    (checkpoint,) = [e for e in events if e["kind"] == "checkpoint"]
    assert checkpoint["interrupted"] is True


def test_replay_same_and_divergent(cli: Cli, repo: Path, tmp_path: Path) -> None:
    denied = script(tmp_path, [
        {"toolCalls": [edit("a.py", "A = 1", "A = 2")]},
        {"toolCalls": [command("rm b.py")]},
        {"text": "done"},
    ])  # fmt: skip
    proc = cli.run("ask", "work", "--model", denied, "--yes", "--deny", "run_command(rm *)")
    assert proc.returncode == 0, proc.stderr
    path = cli.session_files()[0]
    same = cli.run("replay", path.stem)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "same decisions" in same.stdout and "2 tool call" in same.stdout

    # Inject a divergence: the recorded run did not have the deny rule.
    events = [json.loads(line) for line in path.read_text().splitlines()]
    for event in events:
        if event["kind"] == "run_started":
            event["settings"]["permissions"] = {}
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    diverged = cli.run("replay", path.stem)
    assert diverged.returncode == 1
    assert "first divergence" in diverged.stdout and "decision" in diverged.stdout
    assert "deny rule run_command(rm *)" in diverged.stdout


def test_the_model_hears_of_files_changed_since_it_read_them(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    said = "(by a command, the person or another program): "
    model = script(tmp_path, [
        {"toolCalls": [{"name": "read_file", "input": {"path": "a.py"}},
                       {"name": "read_file", "input": {"path": "mine.txt"}}]},
        # a command changes a file it read: told right after that turn
        {"toolCalls": [command("echo 'A = 5' > a.py")]},
        # the person edits a file while the model thinks: the watcher tells
        {"expect": {"lastMessageContains": said + "a.py"},
         "toolCalls": [{"name": "list_files", "input": {}}], "delaySeconds": 2},
        {"expect": {"lastMessageContains": said + "mine.txt"}, "text": "ok"},
    ])  # fmt: skip
    proc = cli.popen("ask", "watch", "--model", model, "--yes")
    try:
        wait_until(lambda: _requests(cli) >= 3, what="the third model call")
        (repo / "mine.txt").write_text("edited by the person while the model thinks\n")
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err


def _requests(cli: Cli) -> int:
    try:
        return sum(1 for e in cli.events() if e["kind"] == "model_request")
    except (ValueError, json.JSONDecodeError):
        return 0
