"""`agentls ask` in the home folder or `/` refuses unless --workspace names it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli

REFUSED = "that would let the agent work on all of it"


def reply(tmp_path: Path) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": [{"text": "Hello."}]}))
    return f"scripted:{path}"


def test_ask_in_the_home_folder_refuses(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    cli.workspace = home
    proc = cli.run("ask", "hi", "--model", reply(tmp_path), env={"HOME": str(home)})
    assert proc.returncode == 2
    assert f"not asking in {home}: {REFUSED}" in proc.stderr
    assert "--workspace DIR" in proc.stderr
    assert not (cli.state / "sessions").exists()  # nothing started

    meant = cli.run("ask", "hi", "--model", reply(tmp_path), "--workspace", str(home),
                    env={"HOME": str(home)})  # fmt: skip
    assert meant.returncode == 0, meant.stderr
    assert "Hello." in meant.stdout


def test_ask_at_the_filesystem_root_refuses(cli: Cli, tmp_path: Path) -> None:
    cli.workspace = Path("/")
    proc = cli.run("ask", "hi", "--model", reply(tmp_path))
    assert proc.returncode == 2 and f"not asking in /: {REFUSED}" in proc.stderr


def test_ask_in_a_project_below_home_runs(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    cli.workspace = home / "proj"
    cli.workspace.mkdir(parents=True)
    proc = cli.run("ask", "hi", "--model", reply(tmp_path), env={"HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
