"""The languageServers setting, discovery on PATH, positions and the after-edit note."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import load_settings
from agentls.intelligence.after_edits import render_note
from agentls.intelligence.config import LanguageServerConfig, effective_servers
from agentls.intelligence.conversions import apply_edits, char_offset, utf16_column
from agentls.workspace.language import Problem


def fake_path(tmp_path: Path, *commands: str) -> str:
    for command in commands:
        exe = tmp_path / command
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    return str(tmp_path)


def test_basedpyright_wins_over_pyright_and_missing_servers_say_how_to_install(
    tmp_path: Path,
) -> None:
    path = fake_path(tmp_path, "basedpyright-langserver", "pyright-langserver", "ruff")
    choices = {c.name: c for c in effective_servers({}, path)}
    assert "pyright" not in choices
    assert choices["basedpyright"].executable == os.path.join(path, "basedpyright-langserver")
    assert choices["ruff"].config.args == ["server"]
    assert choices["gopls"].executable is None
    assert choices["gopls"].why_missing == (
        "gopls was not found on PATH; install it: go install golang.org/x/tools/gopls@latest"
    )


def test_settings_change_or_turn_off_a_server_by_name(tmp_path: Path) -> None:
    path = fake_path(tmp_path, "pyright-langserver", "ruff", "mylsp")
    settings = load_settings({
        "languageServers": {
            "ruff": None,
            "mine": {"command": "mylsp", "filePatterns": ["*.foo"], "settings": {"a": {"b": 1}}},
        },
        "problems": {"severity": "warning", "settleSeconds": 0.5},
    })  # fmt: skip
    names = [c.name for c in effective_servers(settings.language_servers, path) if c.executable]
    assert names == ["pyright", "mine"]  # pyright serves Python when basedpyright is absent
    assert settings.problems.severity == "warning" and settings.problems.settle_seconds == 0.5


def test_a_bad_server_setting_names_the_field() -> None:
    with pytest.raises(ConfigError, match=r"languageServers\.x\.filePatterns"):
        load_settings({"languageServers": {"x": {"command": "x", "filePatterns": []}}})
    with pytest.raises(ConfigError, match=r"problems\.severity"):
        load_settings({"problems": {"severity": "loud"}})
    assert LanguageServerConfig(command="x", file_patterns=["*.x"]).enabled


def test_columns_count_utf16_units_like_the_protocol() -> None:
    line = "s = '😀' + name"
    assert utf16_column(line, line.index("name")) == line.index("name") + 1
    second = "x = '😀'; name = 2"
    text = f"a = 1\n{second}\n"
    position = types.Position(line=1, character=utf16_column(second, second.index("name")))
    assert text[char_offset(text, position) :].startswith("name")


def test_server_edits_apply_from_the_end() -> None:
    def edit(line: int, start: int, end: int, new: str) -> types.TextEdit:
        rng = types.Range(types.Position(line, start), types.Position(line, end))
        return types.TextEdit(range=rng, new_text=new)

    text = "total = 1\nprint(total + total)\n"
    edits = [edit(0, 0, 5, "sum_"), edit(1, 6, 11, "sum_"), edit(1, 14, 19, "sum_")]
    assert apply_edits(text, edits) == "sum_ = 1\nprint(sum_ + sum_)\n"


def test_the_note_lists_new_problems_and_what_did_not_settle() -> None:
    problems = [
        Problem("b.py", 3, "bad type", "basedpyright", "error", "reportAssignmentType"),
        Problem("c.py", 1, "unused", "Ruff", "warning"),
    ]
    note = render_note(problems, ["c.py"])
    assert note.splitlines() == [
        "New problems after this turn's edits (not there before):",
        "b.py:3: bad type (basedpyright reportAssignmentType)",
        "c.py:1: unused (Ruff)",
        "(the checker had not finished with c.py; there may be more)",
    ]


def test_doctor_names_the_files_here_no_server_would_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentls.intelligence import missing_here

    monkeypatch.setenv("PATH", fake_path(tmp_path / "bin", "ruff") if _mkdir(tmp_path) else "")
    root = tmp_path / "w"
    root.mkdir()
    (root / "main.py").write_text("")
    (root / "go.mod").write_text("module x\n")
    gaps = missing_here(root)
    assert not any("*.py" in gap for gap in gaps)  # ruff checks Python here
    (go,) = [gap for gap in gaps if "*.go" in gap]
    assert go == (
        "no language server would check *.go here: gopls was not found on PATH; "
        "install it: go install golang.org/x/tools/gopls@latest"
    )
    assert not any("*.rs" in gap or "*.ts" in gap for gap in gaps)  # no such files here
    custom = {"ruff": None, "mine": LanguageServerConfig(command="mylsp", file_patterns=["*.py"])}
    (python,) = missing_here(root, custom)[:1]
    assert python.startswith("no language server would check *.py, *.pyi here:")
    assert "mylsp was not found on PATH" in missing_here(root, custom)[-1]


def test_lookups_on_path_are_made_once_per_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentls.intelligence import config

    calls: list[str] = []
    real = config.shutil.which

    def counting(command: str, path: str | None = None) -> str | None:
        calls.append(command)
        return real(command, path=path)

    monkeypatch.setattr(config.shutil, "which", counting)
    config._which.cache_clear()
    path = fake_path(tmp_path, "ruff")
    monkeypatch.setenv("PATH", path)
    effective_servers({}, path)
    first = len(calls)
    effective_servers({})  # every session: the same PATH, no new lookups
    assert first == len(config.DEFAULT_SERVERS) and len(calls) == first
    fake_path(tmp_path, "gopls")  # installed since: the doctor looks again
    gopls = next(c for c in config.discover_language_servers() if c.name == "gopls")
    assert gopls.executable == os.path.join(path, "gopls")


def _mkdir(tmp_path: Path) -> bool:
    (tmp_path / "bin").mkdir()
    return True
