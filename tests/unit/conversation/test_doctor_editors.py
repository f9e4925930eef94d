"""The doctor finds agentls's editor clients where their package managers put them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentls.conversation.doctor import editor_integrations, probe_version


def test_editor_clients_in_the_usual_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    vscode = tmp_path / ".vscode/extensions/agentls.agentls-0.1.0"
    vscode.mkdir(parents=True)
    (vscode / "package.json").write_text(json.dumps({"name": "agentls", "version": "0.1.0"}))
    lazy = tmp_path / ".local/share/nvim/lazy/agentls/lua/agentls"
    lazy.mkdir(parents=True)
    (lazy / "version.lua").write_text("-- the version\nreturn '0.1.0'\n")
    packer = (
        tmp_path / ".local/share/nvim/site/pack/packer/start/agentls/editors/neovim/lua/agentls"
    )
    packer.mkdir(parents=True)
    (packer / "version.lua").write_text("return '0.0.9'\n")
    vc = tmp_path / ".emacs.d/elpa/agentls/editors/emacs"
    vc.mkdir(parents=True)
    (vc / "agentls.el").write_text(";;; agentls.el --- x\n\n;; Version: 0.1.0\n")
    (tmp_path / ".vscode/extensions/other.thing-1.0.0").mkdir()

    found = {(e["editor"], e["version"], e["path"]) for e in editor_integrations(tmp_path)}
    assert found == {
        ("vscode", "0.1.0", str(vscode)),
        ("neovim", "0.1.0", str(lazy.parent.parent)),
        ("neovim", "0.0.9", str(packer.parent.parent)),
        ("emacs", "0.1.0", str(vc)),
    }


def test_nothing_installed_is_an_empty_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert editor_integrations(tmp_path) == []


def test_version_probe_reads_the_first_version_and_survives_failures(tmp_path: Path) -> None:
    script = tmp_path / "tool"
    script.write_text("#!/bin/sh\necho 'tool version 1.2.3 (built 2024)'\n")
    script.chmod(0o755)
    assert probe_version([str(script), "--version"]) == "1.2.3"
    assert probe_version([str(tmp_path / "missing")]) is None
