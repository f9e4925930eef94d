"""The ACP editor guides' config files: each parses, and each starts `agentls acp`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

EDITORS = Path(__file__).resolve().parents[3] / "editors"


@pytest.mark.parametrize("path", ["zed/agent-servers.json", "jetbrains/acp.json"])
def test_agent_servers_entries_start_agentls_acp(path: str) -> None:
    entry = json.loads((EDITORS / path).read_text("utf-8"))["agent_servers"]["agentls"]
    assert entry["command"] == "agentls" and entry["args"] == ["acp"]
    assert isinstance(entry.get("env", {}), dict)


@pytest.mark.parametrize("name", ["codecompanion.lua", "avante.lua"])
def test_the_neovim_configs_are_lua_that_starts_agentls_acp(name: str) -> None:
    path = EDITORS / "neovim-acp" / name
    assert '"agentls"' in path.read_text("utf-8") and '"acp"' in path.read_text("utf-8")
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("nvim is not installed")
    check = f'lua local f, e = loadfile("{path}"); if not f then print(e); vim.cmd("cq") end'
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-c", check, "-c", "qa!"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_agent_shell_config_is_balanced_emacs_lisp() -> None:
    path = EDITORS / "emacs-acp" / "agentls-agent-shell.el"
    assert '\'("agentls" "acp")' in path.read_text("utf-8")
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed")
    done = subprocess.run(
        [emacs, "-Q", "--batch", "--eval", f'(progn (find-file "{path}") (check-parens))'],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
