"""The one settings-layering function: order, rule lists, untrusted layers, strict errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings, load_settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.conversation.settings_layers import SettingsLayer, layer_settings
from agentls.lsp.editor_settings import editor_layers, merge_face_settings
from agentls.permissions.rules import Rule, RuleSet

NOTE = "ignoring {ignored} from the test"


def test_later_layers_win_key_by_key() -> None:
    loaded = layer_settings(
        SettingsLayer({"maxTurns": 10, "model": "openai:a"}),
        SettingsLayer(None),  # a source with nothing to say
        SettingsLayer({"maxTurns": 3}),
    )
    assert loaded.settings.limits.max_turns == 3
    assert loaded.settings.model.id == "openai:a"
    assert loaded.notes == ()


def test_nothing_is_the_defaults() -> None:
    assert layer_settings().settings == Settings()


def test_rule_lists_and_servers_add_up() -> None:
    settings = layer_settings(
        SettingsLayer({"permissions": {"deny": ["run_command(rm *)"]},
                       "mcpServers": {"a": {"command": "x"}}}),
        SettingsLayer({"permissions": {"deny": ["write_file"], "allow": ["read_file"]},
                       "mcpServers": {"b": {"command": "y"}}}),
    ).settings  # fmt: skip
    rules = settings.permissions.rules
    assert [str(r) for r in rules.deny] == ["run_command(rm *)", "write_file"]
    assert [str(r) for r in rules.allow] == ["read_file"]
    assert sorted(settings.mcp_servers) == ["a", "b"]


def test_rules_are_parsed_once_at_load() -> None:
    settings = load_settings(
        {"permissions": {"deny": [{"rule": "run_command(rm *)", "stop": True}]}}
    )
    assert isinstance(settings.permissions.rules, RuleSet)
    assert settings.permissions.rules is settings.permissions.rules
    assert settings.permissions.rules.deny == [Rule("run_command", "rm *", stop=True)]


def test_untrusted_layer_keeps_harmless_keys_and_names_the_rest() -> None:
    loaded = layer_settings(
        SettingsLayer({"maxTurns": 20}),
        SettingsLayer.untrusted(
            {"model": "openai:evil", "maxTurns": 30, "compaction": False,
             "permissions": {"allow": ["run_command(*)"], "deny": ["write_file"]}},
            NOTE,
        ),
    )  # fmt: skip
    settings = loaded.settings
    assert settings.model.id == Settings().model.id
    assert settings.limits.max_turns == 20  # higher than what is in force: ignored
    assert settings.context.compaction is False
    assert settings.permissions.rules.allow == []
    assert [str(r) for r in settings.permissions.rules.deny] == ["write_file"]
    (note,) = loaded.notes
    assert note.startswith("ignoring model, maxTurns=30 (higher than 20), permissions.allow")


def test_untrusted_limits_compare_with_what_is_in_force_so_far() -> None:
    lower = SettingsLayer.untrusted({"maxTurns": 8}, NOTE)
    assert layer_settings(SettingsLayer({"maxTurns": 10}), lower).settings.limits.max_turns == 8
    loaded = layer_settings(SettingsLayer({"maxTurns": 5}), lower)
    assert loaded.settings.limits.max_turns == 5 and "higher than 5" in loaded.notes[0]


def test_a_trusted_layer_after_an_untrusted_one_still_applies() -> None:
    settings = layer_settings(
        SettingsLayer.untrusted({"mode": "bypass"}, NOTE), SettingsLayer({"mode": "bypass"})
    ).settings
    assert settings.permissions.mode.value == "bypass"


@pytest.mark.parametrize(
    ("key", "value"),
    [("maxTurns", "5"), ("sandboxNetwork", "true"), ("approvalsVia", "email"),
     ("permissions", {"allow": "read_file"}), ("noSuchKey", 1)],
)  # fmt: skip
def test_a_bad_layer_is_an_error_naming_the_key(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=key):
        layer_settings(SettingsLayer({"maxTurns": 3}), SettingsLayer({key: value}))


def test_a_wrongly_typed_value_in_an_untrusted_layer_is_still_named() -> None:
    with pytest.raises(ConfigError, match="maxTurns"):
        layer_settings(SettingsLayer.untrusted({"maxTurns": "5"}, NOTE))


def test_a_layer_that_is_no_object_is_an_error() -> None:
    with pytest.raises(ConfigError, match="must be an object, got list"):
        layer_settings(SettingsLayer(["maxTurns"]))


def test_the_editors_workspace_scope_is_an_untrusted_layer() -> None:
    sent = {"agentls": {"maxTurns": 20, "reviewVia": "prompt",
                        "workspaceScoped": {"baseUrl": "http://evil", "maxTurns": 4,
                                            "approvalsVia": "codeAction"}}}  # fmt: skip
    loaded = layer_settings(*editor_layers(sent))
    assert loaded.settings.model.base_url is None
    assert loaded.settings.limits.max_turns == 4
    assert "baseUrl" in loaded.notes[0] and "editor's workspace settings" in loaded.notes[0]
    face = merge_face_settings(sent)
    assert (face.approvals_via, face.review_via) == ("codeAction", "prompt")


def test_files_then_face_layers(tmp_path: Path) -> None:
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "agentls" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"maxTurns": 30, "permissions": {"deny": ["write_file"]}}))
    root = tmp_path / "ws"
    (root / ".agentls").mkdir(parents=True)
    (root / ".agentls" / "settings.json").write_text(
        json.dumps({"maxTurns": 12, "sandbox": "off", "approvalsVia": "prompt"})
    )
    flags = SettingsLayer({"maxTurns": 40, "permissions": {"deny": ["edit_file"]}})
    loaded = SettingsFiles(tmp_path / "state").load(root, flags)
    settings = loaded.settings
    assert settings.limits.max_turns == 40
    assert [str(r) for r in settings.permissions.rules.deny] == ["write_file", "edit_file"]
    assert settings.sandbox.enabled and settings.face.approvals_via == "prompt"
    (note,) = loaded.notes
    assert "ignoring sandbox until you approve" in note and "agentls trust" in note


def test_the_wire_form_round_trips_and_the_log_leaves_out_face_keys() -> None:
    settings = load_settings({"maxTurns": 7, "approvalsVia": "prompt", "secretFiles": ["v/*"]})
    assert load_settings(settings.to_wire()) == settings
    assert "approvalsVia" not in settings.to_log() and settings.to_log()["maxTurns"] == 7
    assert settings.sandbox.secret_patterns == settings.permissions.secret_patterns
    assert settings.permissions.secret_patterns[-1] == "v/*"
