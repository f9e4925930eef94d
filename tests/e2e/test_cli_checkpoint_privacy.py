"""Checkpoints never write into the person's repository, whatever the environment says."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from tests.e2e.conftest import Cli

GIT = ["git", "-c", "user.email=p@example.com", "-c", "user.name=Person", "-c", "gc.auto=0"]


def digest_of_every_file(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_a_checkpointed_ask_leaves_the_persons_git_folder_byte_for_byte_alone(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    for index in range(50):
        folder = workspace / f"pkg{index % 4}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{index}.py").write_text(f"VALUE = {index}\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=workspace, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=workspace, check=True)
    subprocess.run([*GIT, "commit", "-qm", "start"], cwd=workspace, check=True)
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": [
        {"toolCalls": [{"name": "read_file", "input": {"path": "pkg0/m0.py"}}]},
        {"toolCalls": [{"name": "edit_file", "input": {
            "path": "pkg0/m0.py", "old_text": "VALUE = 0", "new_text": "VALUE = 100"}}]},
        {"toolCalls": [{"name": "run_command", "input": {
            "command": "mkdir -p out && echo made > out/new.txt && echo more >> pkg1/m1.py"}}]},
        {"text": "done"},
    ]}))  # fmt: skip
    before = digest_of_every_file(workspace / ".git")
    # An environment that would send git elsewhere (as inside a git hook) changes nothing.
    hostile = {"GIT_OBJECT_DIRECTORY": str(workspace / ".git" / "objects"),
               "GIT_INDEX_FILE": str(workspace / ".git" / "index")}  # fmt: skip

    proc = cli.run("ask", "change", "--model", f"scripted:{script}", "--yes", env=hostile)

    assert proc.returncode == 0, proc.stderr
    assert (workspace / "out" / "new.txt").exists()
    checkpoints = [e for e in cli.events() if e["kind"] == "checkpoint"]
    changed = sorted(c["path"] for e in checkpoints for c in e["changed"])
    assert changed == ["out/new.txt", "pkg0/m0.py", "pkg1/m1.py"]  # checkpoints did run
    assert digest_of_every_file(workspace / ".git") == before

    undo = cli.run("undo", cli.session_files()[0].stem, env=hostile)
    assert undo.returncode == 0, undo.stderr
    assert digest_of_every_file(workspace / ".git") == before
