"""The configs for editors that cannot run here: parsed, and their settings checked.

Each config's agentls settings must be settings agentls accepts, the commands
they name must be commands the server offers, and the scripts must at least
read as their language.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from agentls.lsp.editor_settings import merge_face_settings, merge_settings
from agentls.lsp.main import build_server
from tests.e2e.editors.real_editor import EDITORS


def load_json(path: Path) -> Any:
    return json.loads(path.read_text())


def check_settings(settings: dict[str, Any]) -> None:
    merge_settings(settings)  # raises ConfigError naming each bad setting
    merge_face_settings(settings)


def server_commands() -> set[str]:
    names: set[str] = set(build_server().protocol.fm.commands)
    return names


def named_commands(text: str) -> set[str]:
    return set(re.findall(r"\bagentls\.[a-zA-Z]+\b", text)) - {"agentls.el", "agentls.py"}


def test_every_editor_has_a_guide_saying_what_was_tested() -> None:
    for name in ("neovim", "emacs", "helix", "sublime", "zed", "kate"):
        guide = (EDITORS / name / "README.md").read_text()
        for section in ("## Install", "## Ask", "## Approve a command",
                        "## Review and accept an edit", "## Cancel",
                        "## Read the answer and the transcript", "## What was tested"):  # fmt: skip
            assert section in guide, f"{name}: {section}"


def test_helix() -> None:
    languages = tomllib.loads((EDITORS / "helix" / "languages.toml").read_text())
    server = languages["language-server"]["agentls"]
    assert [server["command"], *server["args"]] == ["agentls", "serve"]
    check_settings(server["config"])
    assert server["config"]["approvalsVia"] == "codeAction"
    assert all("agentls" in language["language-servers"] for language in languages["language"])
    keys = tomllib.loads((EDITORS / "helix" / "config.toml").read_text())
    bound = " ".join(keys["keys"]["normal"]["space"].values())
    assert named_commands(bound) <= server_commands()


def test_kate() -> None:
    servers = load_json(EDITORS / "kate" / "lspclient.json")["servers"]
    assert servers["python"] == {"use": "agentls"}  # Python documents are opened on agentls
    server = servers["agentls"]
    assert server["command"] == ["agentls", "serve"]
    check_settings(server["initializationOptions"])
    check_settings(server["settings"]["agentls"])
    assert server["initializationOptions"]["reviewVia"] == "codeAction"
    assert re.compile(server["highlightingModeRegex"]).match("Markdown")


def test_sublime() -> None:
    folder = EDITORS / "sublime"
    server = load_json(folder / "LanguageServers.sublime-settings")["agentls"]
    assert server["command"] == ["agentls", "serve"] and server["enabled"] is True
    check_settings(server["initializationOptions"])
    check_settings(server["settings"]["agentls"])
    commands = load_json(folder / "Default.sublime-commands")
    keymap = load_json(folder / "Default.sublime-keymap")
    for entry in [*commands, *keymap]:
        if entry["command"] == "lsp_execute":
            assert entry["args"]["session_name"] == "agentls"
            assert entry["args"]["command_name"] in server_commands()
    plugin = (folder / "agentls.py").read_text()
    ast.parse(plugin)
    assert named_commands(plugin) <= server_commands()


def test_zed() -> None:
    folder = EDITORS / "zed"
    extension = tomllib.loads((folder / "extension.toml").read_text())
    assert extension["id"] == "agentls" and "agentls" in extension["language_servers"]
    cargo = tomllib.loads((folder / "Cargo.toml").read_text())
    assert cargo["lib"]["crate-type"] == ["cdylib"]
    assert "zed_extension_api" in cargo["dependencies"]
    settings = load_json(folder / "settings.json")["lsp"]["agentls"]
    check_settings(settings["initialization_options"])
    check_settings(settings["settings"])
    source = (folder / "src" / "lib.rs").read_text()
    assert "register_extension!(Agentls)" in source and '"serve"' in source


@pytest.mark.skipif(shutil.which("emacs") is None, reason="emacs is not installed")
def test_emacs_files_read_as_lisp_and_agentls_el_compiles_cleanly(tmp_path: Path) -> None:
    folder = EDITORS / "emacs"
    for name in ("lsp-mode-agentls.el", "eglot-plain.el", "agentls.el"):
        read_all = (
            f'(with-temp-buffer (insert-file-contents "{folder / name}") (goto-char 1)'
            " (condition-case nil (while t (read (current-buffer))) (end-of-file nil)))"
        )
        result = subprocess.run(["emacs", "--batch", "--eval", read_all],
                                capture_output=True, text=True, timeout=60)  # fmt: skip
        assert result.returncode == 0, (name, result.stderr)
    shutil.copy(folder / "agentls.el", tmp_path / "agentls.el")
    compiled = subprocess.run(
        ["emacs", "--batch", "--eval", "(setq byte-compile-error-on-warn t)",
         "-f", "batch-byte-compile", str(tmp_path / "agentls.el")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr
    assert (tmp_path / "agentls.elc").exists()
    assert named_commands((folder / "agentls.el").read_text()) <= server_commands()
    assert named_commands((folder / "lsp-mode-agentls.el").read_text()) <= server_commands()


def test_neovim_plugin_names_only_real_commands() -> None:
    plugin = (EDITORS / "neovim" / "lua" / "agentls" / "init.lua").read_text()
    assert named_commands(plugin) <= server_commands()


def test_neovim_guide_shows_the_configuration_without_the_plugin_that_is_run() -> None:
    """The guide's "Without the plugin" block is without-plugin.lua, which
    test_neovim.py runs as written."""
    folder = EDITORS / "neovim"
    config = (folder / "without-plugin.lua").read_text()
    assert f"```lua\n{config}```" in (folder / "README.md").read_text()
    assert named_commands(config) and named_commands(config) <= server_commands()
