"""The doctor's hooks: each configured hook by event and settings layer, whether a session
here would run it and why not, the flags that turn hooks off, the entries that do not
load; and that the doctor itself runs none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentls.conversation.doctor import build_report
from agentls.conversation.settings_files import SettingsFiles
from agentls.conversation.settings_layers import SettingsLayer
from agentls.hooks.config import HookCommand, read_entries
from agentls.protocol.reports import DoctorReport
from tests.helpers import hooks

NOT_APPROVED = "the workspace settings file is not approved (`agentls trust`)"


def write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    return tmp_path / "config" / "agentls" / "settings.json"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def hooks_of(root: Path | None, state: Path, settings: Any = None) -> dict[str, Any]:
    report = build_report(root, state, settings)
    assert DoctorReport.model_validate(report).wire() == report  # the schema holds it all
    return report


def rows(report: dict[str, Any]) -> list[tuple[str, str, str, bool, str | None]]:
    return [
        (h["event"], h["command"], h["source"], h["runs"], h["reason"])
        for h in report["hooks"]["configured"]
    ]


def test_entries_load_one_by_one_and_each_bad_one_is_named() -> None:
    raw = {
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [
                {"type": "command", "command": "./fmt.sh", "timeout": 30},
                {"type": "http", "url": "https://hooks.example/x"},
                {"type": "command", "command": "./x.sh", "async": True},
            ]},
            {"matcher": "(", "hooks": [{"type": "command", "command": "./never.sh"}]},
            {"hooks": []},
            {"matcher": "Bash", "when": "always", "hooks": [{"type": "command", "command": "y"}]},
        ],
        "SubagentStop": [{"hooks": [{"type": "command", "command": "./sub.sh"}]}],
        "Stop": {"hooks": []},
    }  # fmt: skip
    entries = read_entries(raw, managed=True)
    assert entries.commands == (
        HookCommand("PostToolUse", "./fmt.sh", "Edit|Write", 30, True, managed=True),
    )
    problems = dict(entries.problems)
    assert list(problems) == [
        "hooks.PostToolUse[0].hooks[1]",
        "hooks.PostToolUse[0].hooks[2]",
        "hooks.PostToolUse[1].matcher",
        "hooks.PostToolUse[2].hooks",
        "hooks.PostToolUse[3]",
        "hooks.SubagentStop",
        "hooks.Stop",
    ]
    assert problems["hooks.PostToolUse[0].hooks[1]"] == (
        "type 'http': agentls runs only `command` hooks"
    )
    assert "async" in problems["hooks.PostToolUse[0].hooks[2]"]
    assert "not a regular expression" in problems["hooks.PostToolUse[1].matcher"]
    assert problems["hooks.PostToolUse[3]"] == "unknown key when"
    assert problems["hooks.SubagentStop"].startswith("unknown event")
    assert read_entries(["not", "an", "object"]).problems == (
        ("hooks", "must be an object naming events"),
    )
    assert read_entries(None) == read_entries({})


def test_user_hooks_run_and_an_unapproved_workspace_file_s_never_do(
    tmp_path: Path, user_file: Path, root: Path
) -> None:
    state = tmp_path / "state"
    marker = tmp_path / "ran"
    write(user_file, {"hooks": {**hooks("PreToolUse", f"touch {marker}", "Bash"),
                                **hooks("Stop", f"touch {marker}.stop", timeout=5)}})  # fmt: skip
    workspace_file = write(
        root / ".agentls" / "settings.json", {"hooks": hooks("PostToolUse", "./fmt.sh", "Edit")}
    )
    report = hooks_of(root, state)
    assert rows(report) == [
        ("PreToolUse", f"touch {marker}", "user", True, None),
        ("PostToolUse", "./fmt.sh", "workspace", False, NOT_APPROVED),
        ("Stop", f"touch {marker}.stop", "user", True, None),
    ]
    first = report["hooks"]["configured"][0]
    assert (first["matcher"], first["timeout"], first["sandbox"]) == ("Bash", 60, True)
    assert first["path"] == str(user_file)
    assert report["hooks"]["configured"][1]["path"] == str(workspace_file)
    assert any("MCP servers and hooks are ignored" in w for w in report["warnings"])
    assert not list(tmp_path.glob("ran*"))  # the doctor ran no hook

    SettingsFiles(state).trust(workspace_file)
    trusted = hooks_of(root, state)
    assert ("PostToolUse", "./fmt.sh", "workspace", True, None) in rows(trusted)
    assert not list(tmp_path.glob("ran*"))


def test_disable_all_hooks_leaves_the_managed_ones(
    tmp_path: Path, user_file: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    managed = write(tmp_path / "managed.json", {"hooks": hooks("SessionStart", "./audit.sh")})
    monkeypatch.setenv("AGENTLS_MANAGED_SETTINGS", str(managed))
    write(user_file, {"hooks": hooks("PreToolUse", "./check.sh"), "disableAllHooks": True})
    report = hooks_of(root, tmp_path / "state")
    assert report["hooks"]["disableAllHooks"] is True
    assert report["hooks"]["allowManagedHooksOnly"] is False
    assert rows(report) == [
        ("PreToolUse", "./check.sh", "user", False, "disableAllHooks is set"),
        ("SessionStart", "./audit.sh", "managed", True, None),
    ]
    assert report["hooks"]["configured"][1]["path"] == str(managed)


def test_allow_managed_hooks_only(
    tmp_path: Path, user_file: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    managed = write(
        tmp_path / "managed.json",
        {"hooks": hooks("PreToolUse", "./policy.sh", "Bash"), "allowManagedHooksOnly": True},
    )
    monkeypatch.setenv("AGENTLS_MANAGED_SETTINGS", str(managed))
    write(user_file, {"hooks": hooks("PreToolUse", "./mine.sh", "Bash")})
    report = hooks_of(root, tmp_path / "state")
    assert report["hooks"]["allowManagedHooksOnly"] is True
    only = "the managed settings run only their own hooks (allowManagedHooksOnly)"
    assert rows(report) == [
        ("PreToolUse", "./mine.sh", "user", False, only),
        ("PreToolUse", "./policy.sh", "managed", True, None),
    ]


def test_the_editor_s_own_hooks_are_their_own_layer(
    tmp_path: Path, user_file: Path, root: Path
) -> None:
    state = tmp_path / "state"
    write(user_file, {"hooks": hooks("Stop", "./done.sh")})
    notify = hooks("Notification", "notify-send hi")
    editor = SettingsLayer({"hooks": {**hooks("Stop", "./done.sh"), **notify}})
    settings = SettingsFiles(state).load(root, editor).settings
    report = hooks_of(root, state, settings)
    assert rows(report) == [
        ("Stop", "./done.sh", "user", True, None),
        ("Stop", "./done.sh", "editor", True, None),
        ("Notification", "notify-send hi", "editor", True, None),
    ]
    assert report["hooks"]["configured"][1]["path"] is None


def test_a_bad_entry_in_a_trusted_file_is_named_and_nothing_runs(
    tmp_path: Path, user_file: Path, root: Path
) -> None:
    prompt = {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "ok?"}]}]}
    write(user_file, {"hooks": {**hooks("Stop", "./done.sh"), **prompt}})
    report = hooks_of(root, tmp_path / "state")
    assert rows(report) == [("Stop", "./done.sh", "user", False, "the settings do not load")]
    assert report["hooks"]["problems"] == [{
        "source": "user", "path": str(user_file), "entry": "hooks.PreToolUse[0].hooks[0]",
        "error": "type 'prompt': agentls runs only `command` hooks",
    }]  # fmt: skip
    assert f"{user_file}: hooks.PreToolUse[0].hooks[0] does not load: type 'prompt': " in (
        "\n".join(report["warnings"])
    )
    assert report["blocking"] and report["ok"] is False


def test_no_hooks_and_no_workspace(tmp_path: Path) -> None:
    report = hooks_of(None, tmp_path / "state")
    assert report["hooks"] == {
        "disableAllHooks": False, "allowManagedHooksOnly": False, "configured": [], "problems": [],
    }  # fmt: skip
