"""The managed settings file: the highest layer, which only tightens, and fails closed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import load_settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.conversation.settings_layers import SettingsLayer, layer_settings
from agentls.conversation.settings_managed import ManagedPolicy, read_managed
from agentls.permissions.modes import Mode
from tests.unit.helpers import conversation


def policy(tmp_path: Path, data: Any) -> ManagedPolicy:
    path = tmp_path / "managed-settings.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    found = read_managed(path)
    assert found is not None
    return found


def test_managed_rules_add_to_the_others_and_a_lower_allow_is_named(tmp_path: Path) -> None:
    managed = policy(tmp_path, {"permissions": {"deny": ["write_file(secret.txt)"],
                                                "ask": ["run_command(git push *)"],
                                                "protectedPaths": ["deploy/**"]}})  # fmt: skip
    loaded = layer_settings(
        SettingsLayer({"permissions": {"allow": ["write_file"], "deny": ["run_command(rm *)"]}}),
        managed=managed,
    )
    rules = loaded.settings.permissions.rules
    assert [str(r) for r in rules.deny] == ["run_command(rm *)", "write_file(secret.txt)"]
    assert [str(r) for r in rules.ask] == ["run_command(git push *)"]
    assert "deploy/**" in rules.protected
    assert [str(r) for r in rules.allow] == ["write_file"]  # kept; the deny beats it
    (notice,) = loaded.notes
    assert notice.startswith(f"managed settings in force ({managed.path}: 1 deny rule")
    assert "permissions.allow write_file" in notice


def test_nothing_layered_over_the_policy_loosens_it(tmp_path: Path) -> None:
    managed = policy(tmp_path, {"permissions": {"disableBypassMode": True},
                                "sandbox": "required", "sandboxNetwork": False,
                                "maxTurns": 10, "maxCostUsd": 1.0})  # fmt: skip
    loaded = layer_settings(
        SettingsLayer({"sandbox": "off", "sandboxNetwork": True, "maxTurns": 99}),
        SettingsLayer({"mode": "bypass", "maxCostUsd": 0.5}),
        managed=managed,
    )
    settings = loaded.settings
    assert settings.permissions.mode is Mode.DEFAULT
    assert settings.sandbox.enabled and settings.sandbox.required
    assert not settings.sandbox.network
    assert settings.limits.max_turns == 10
    assert settings.limits.max_cost_usd == 0.5  # a lower limit stays
    assert settings.managed is not None
    overrides = " | ".join(settings.managed.overrides)
    for said in ('mode "bypass"', 'sandbox "off"', "sandboxNetwork true", "maxTurns 99"):
        assert said in overrides
    assert "maxCostUsd" not in overrides
    # A later load over these settings (a face's own change) is held to the policy too.
    again = load_settings({"mode": "bypass", "sandbox": "off"}, base=settings)
    assert again.permissions.mode is Mode.DEFAULT and again.sandbox.required
    assert again.managed is not None and again.managed.policy == managed


def test_a_model_or_provider_it_does_not_allow_is_refused(tmp_path: Path) -> None:
    managed = policy(tmp_path, {"allowedModels": ["anthropic:claude-*", "scripted:*"],
                                "allowedProviders": ["anthropic", "scripted"]})  # fmt: skip
    ok = layer_settings(SettingsLayer({"model": "scripted:demo"}), managed=managed)
    assert ok.settings.model.id == "scripted:demo"
    with pytest.raises(ConfigError, match="openai:gpt-4o is not allowed here"):
        layer_settings(SettingsLayer({"model": "openai:gpt-4o"}), managed=managed)
    with pytest.raises(ConfigError, match="anthropic:other is not allowed"):
        only = policy(tmp_path, {"allowedModels": ["anthropic:claude-*"]})
        layer_settings(SettingsLayer({"model": "anthropic:other"}), managed=only)


def test_mcp_servers_it_does_not_allow_are_left_out(tmp_path: Path) -> None:
    managed = policy(tmp_path, {
        "allowedMcpServers": [{"name": "github"}, {"url": "https://mcp.example.com/*"}],
        "deniedMcpServers": [{"command": "npx *evil*"}],
    })  # fmt: skip
    servers = {
        "github": {"command": "npx", "args": ["-y", "evil-package"]},  # allowed name, denied line
        "docs": {"url": "https://mcp.example.com/docs"},
        "other": {"command": "other-server"},
    }
    settings = layer_settings(SettingsLayer({"mcpServers": servers}), managed=managed).settings
    assert sorted(settings.mcp_servers) == ["docs"]
    assert settings.managed is not None
    assert any("mcpServers.github" in o for o in settings.managed.overrides)
    assert any("mcpServers.other" in o for o in settings.managed.overrides)


def test_its_telemetry_keys_win(tmp_path: Path) -> None:
    managed = policy(tmp_path, {"telemetry": {"enabled": True, "endpoint": "http://c:4318"}})
    person = {"telemetry": {"enabled": False, "logContent": True, "endpoint": "http://mine"}}
    settings = layer_settings(SettingsLayer(person), managed=managed).settings
    assert settings.telemetry.enabled and settings.telemetry.endpoint == "http://c:4318"
    assert settings.telemetry.log_content  # a key it leaves alone is the person's


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "must hold a JSON object"),
        ('{"hooks": {"SubagentStop": []}}', "hooks.SubagentStop"),
        ('{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "x"}]}]}}', "type"),
        ('{"permissions": {"allow": ["run_command"]}}', "permissions.allow"),
        ('{"sandbox": "off"}', "sandbox"),
        ('{"surprise": 1}', "surprise"),
        ('{"permissions": {"deny": ["run_command("]}}', "permissions.deny"),
        ('{"secretFiles": ["!.env"]}', "no `!` exemptions"),
    ],
)
def test_a_file_that_does_not_load_stops_every_load(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "managed-settings.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match="do not load") as raised:
        read_managed(path)
    assert str(path) in str(raised.value) and why in str(raised.value)


def test_the_files_fail_closed_and_no_file_is_no_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "etc" / "managed-settings.json"
    monkeypatch.setenv("AGENTLS_MANAGED_SETTINGS", str(path))
    files = SettingsFiles(tmp_path / "state")
    assert files.load(None).settings.managed is None
    path.parent.mkdir()
    path.symlink_to(tmp_path / "nowhere.json")  # there, but unreadable
    with pytest.raises(ConfigError, match="cannot read it"):
        files.load(None)
    path.unlink()
    path.write_text(json.dumps({"permissions": {"deny": ["run_command"]}}))
    loaded = files.load(None, SettingsLayer({"permissions": {"allow": ["run_command(ls)"]}}))
    assert [str(r) for r in loaded.settings.permissions.rules.deny] == ["run_command"]
    assert any(note.startswith("managed settings in force") for note in loaded.notes)


def test_the_logged_settings_hide_telemetry_headers(tmp_path: Path) -> None:
    settings = load_settings({"telemetry": {"enabled": True, "headers": {"x-key": "hunter2"}}})
    assert settings.to_log()["telemetry"]["headers"] == {"x-key": "<hidden>"}


def test_bypass_mode_cannot_be_chosen_later(tmp_path: Path) -> None:
    managed = policy(tmp_path, {"permissions": {"disableBypassMode": True}})
    settings = layer_settings(SettingsLayer({"model": "scripted:test"}), managed=managed)
    conv, _, manager = conversation(tmp_path, [{"text": "ok"}])
    try:
        conv.apply_settings(settings.settings)
        with pytest.raises(ValueError, match="bypass mode is turned off"):
            conv.set_mode(Mode.BYPASS)
        assert conv.policy.mode is Mode.DEFAULT
        conv.set_mode(Mode.ACCEPT_EDITS)  # any other mode is still the person's to pick
        assert conv.policy.mode is Mode.ACCEPT_EDITS
    finally:
        manager.close()


def test_an_unapproved_file_may_require_the_sandbox_but_not_turn_it_off() -> None:
    note = "ignoring {ignored}"
    strict = layer_settings(SettingsLayer.untrusted({"sandbox": "required"}, note))
    assert strict.settings.sandbox.required and strict.notes == ()
    loose = layer_settings(SettingsLayer.untrusted({"sandbox": "off"}, note))
    assert loose.settings.sandbox.enabled and loose.notes == ("ignoring sandbox",)
