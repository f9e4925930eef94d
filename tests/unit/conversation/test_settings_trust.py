"""What an unapproved settings layer may set: harmless keys, lower limits, a stricter
mode, tighter rules; and settings are strictly typed."""

from __future__ import annotations

from typing import Any

import pytest

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings, load_settings
from agentls.conversation.settings_layers import untrusted_part
from agentls.lsp.editor_settings import merge_settings


@pytest.mark.parametrize(
    ("data", "kept"),
    [
        ({"contextWindow": 32000, "compaction": False},
         {"contextWindow": 32000, "compaction": False}),
        ({"maxTurns": 3}, {"maxTurns": 3}),
        ({"maxTurns": 500}, {}),
        ({"maxCostUsd": 1.5}, {"maxCostUsd": 1.5}),  # none in force: any limit lowers
        ({"mode": "plan"}, {"mode": "plan"}),
        ({"mode": "bypass"}, {}),
        ({"mode": "accept-edits"}, {}),
        ({"permissions": {"deny": ["run_command(rm *)"], "allow": ["run_command(*)"]}},
         {"permissions": {"deny": ["run_command(rm *)"]}}),
        ({"secretFiles": ["vault/*", "!.env"]}, {"secretFiles": ["vault/*"]}),
        ({"model": "openai:x", "baseUrl": "http://x", "sandbox": "off", "sandboxNetwork": True,
          "sandboxEnv": {"A": "b"}, "sandboxWritable": ["/"], "mcpServers": {"a": {"command": "x"}},
          "alwaysAllowScope": "workspace", "checkpoints": False, "languageServers": {}}, {}),
    ],
)  # fmt: skip
def test_untrusted_part(data: dict[str, Any], kept: dict[str, Any]) -> None:
    assert untrusted_part(data, Settings())[0] == kept


def test_what_is_dropped_is_named() -> None:
    _, dropped = untrusted_part(
        {"baseUrl": "http://x", "mode": "bypass", "maxTurns": 99}, Settings()
    )
    assert "baseUrl" in dropped and any("mode" in d for d in dropped)
    assert any("maxTurns" in d for d in dropped)


def test_a_stricter_mode_is_measured_against_what_is_in_force() -> None:
    assert untrusted_part({"mode": "default"}, load_settings({"mode": "plan"}))[0] == {}


@pytest.mark.parametrize(
    ("key", "value"),
    [("sandboxNetwork", "true"), ("maxTurns", "5"), ("compaction", 1), ("sandboxEnv", {"A": 1}),
     ("sandboxEnv", {"1A": "x"}), ("secretFiles", "x")],
)  # fmt: skip
def test_settings_are_strict(key: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=key):
        load_settings({key: value})


def test_editor_workspace_scope_is_untrusted() -> None:
    settings = merge_settings(
        {"maxTurns": 20, "workspaceScoped": {"baseUrl": "http://evil/v1", "maxTurns": 4,
                                             "mode": "bypass", "model": "openai:evil"}}
    )  # fmt: skip
    assert settings.model.base_url is None and settings.model == Settings().model
    assert settings.limits.max_turns == 4 and settings.permissions.mode.value == "default"


def test_saved_allow_rules_keep_the_files_mode_and_stay_approved(tmp_path: Any) -> None:
    import json
    import stat

    from agentls.conversation.settings_files import WORKSPACE_FILE, SettingsFiles

    files = SettingsFiles(tmp_path / "state")
    root = tmp_path / "project"
    first = files.save_allow_rules(root, ["run_command(make test)"])  # made, then approved
    assert files.is_trusted(first)
    first.chmod(0o640)
    files.trust(first)
    again = files.save_allow_rules(root, ["run_command(make lint)", "run_command(make test)"])
    assert again == root / WORKSPACE_FILE
    allow = json.loads(again.read_text())["permissions"]["allow"]
    assert allow == ["run_command(make test)", "run_command(make lint)"]
    assert stat.S_IMODE(again.stat().st_mode) == 0o640  # replaced whole, the mode kept
    assert files.is_trusted(again)
    assert sorted(p.name for p in again.parent.iterdir()) == ["settings.json"]
    assert stat.S_IMODE(files.trust_file.stat().st_mode) == 0o600  # the approvals: private


def test_saving_allow_rules_never_writes_through_a_planted_link(tmp_path: Any) -> None:
    """A workspace settings file that is a link to a file elsewhere (the person's own
    settings, say): the rules land in the workspace's file, the other file is untouched."""
    from agentls.conversation.settings_files import WORKSPACE_FILE, SettingsFiles

    elsewhere = tmp_path / "home" / "settings.json"
    elsewhere.parent.mkdir()
    elsewhere.write_text("{}\n")
    root = tmp_path / "project"
    (root / WORKSPACE_FILE).parent.mkdir(parents=True)
    (root / WORKSPACE_FILE).symlink_to(elsewhere)
    files = SettingsFiles(tmp_path / "state")
    saved = files.save_allow_rules(root, ["run_command(make test)"])
    assert elsewhere.read_text() == "{}\n"
    assert not saved.is_symlink() and "run_command(make test)" in saved.read_text()
    assert files.is_trusted(saved) and not files.is_trusted(elsewhere)

    (root / WORKSPACE_FILE).unlink()  # a link to a file not there yet: not made through it
    missing = tmp_path / "home" / "not-yet.json"
    (root / WORKSPACE_FILE).symlink_to(missing)
    saved = files.save_allow_rules(root, ["run_command(make lint)"])
    assert not missing.exists() and not saved.is_symlink()
    assert "run_command(make lint)" in saved.read_text()


def test_allow_rules_are_not_saved_through_a_linked_settings_folder(tmp_path: Any) -> None:
    from agentls.conversation.settings_files import SettingsFiles

    personal = tmp_path / "config" / "agentls"  # where the person's own settings live
    personal.mkdir(parents=True)
    root = tmp_path / "project"
    root.mkdir()
    (root / ".agentls").symlink_to(personal, target_is_directory=True)
    with pytest.raises(ConfigError, match="link out of the workspace"):
        SettingsFiles(tmp_path / "state").save_allow_rules(root, ["run_command(*)"])
    assert list(personal.iterdir()) == []
