"""The `hooks` setting: its shape, how layers add up, what an untrusted file and the
managed file do with it, and which hooks an event runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import load_settings
from agentls.conversation.settings_layers import SettingsLayer, layer_settings
from agentls.conversation.settings_managed import read_managed
from agentls.hooks.config import HookCommand, HookSet, matches
from tests.helpers import hooks


def commands(hook_set: HookSet, event: str, *names: str) -> list[tuple[str, bool]]:
    return [(h.command, h.managed) for h in hook_set.matching(event, names)]


@pytest.mark.parametrize(
    ("matcher", "names", "expected"),
    [
        ("", ("run_command", "Bash"), True),
        ("*", ("edit_file", "Edit"), True),
        ("Bash", ("run_command", "Bash"), True),
        ("Bash", ("read_file", "Read"), False),
        ("run_command|edit_file", ("edit_file", "Edit"), True),
        ("Edit|Write", ("write_file", "Write"), True),
        ("Edit", ("edit_file_extra",), False),  # a plain word matches exactly
        ("mcp__.*", ("mcp__git__status",), True),  # anything else is searched as a regex
        ("Notebook.*", ("edit_file", "Edit"), False),
        ("startup|resume", ("resume",), True),
    ],
)
def test_matchers_take_agentls_and_claude_code_names(
    matcher: str, names: tuple[str, ...], expected: bool
) -> None:
    assert matches(matcher, names) is expected


def test_the_setting_loads_with_defaults_and_layers_add_up() -> None:
    user = load_settings({"hooks": hooks("PreToolUse", "./user.sh", "Bash")})
    both = load_settings(
        {"hooks": hooks("PreToolUse", "./ws.sh", "Edit", timeout=5, sandbox=False)}, base=user
    )
    (first, second) = both.hooks.matching("PreToolUse", ("run_command", "Bash", "Edit"))
    assert first == HookCommand("PreToolUse", "./user.sh", "Bash")
    assert first.timeout == 60 and first.sandbox
    assert second == HookCommand("PreToolUse", "./ws.sh", "Edit", timeout=5, sandbox=False)
    assert both.hooks.matching("PreToolUse", ("read_file", "Read")) == ()
    assert not both.hooks.has("Stop")
    # UserPromptSubmit and Stop match nothing: their matchers are ignored, as in Claude Code.
    stop = load_settings({"hooks": hooks("Stop", "./stop.sh", "never-matches")})
    assert commands(stop.hooks, "Stop") == [("./stop.sh", False)]


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"SubagentStop": []}, "SubagentStop"),
        ({"PreToolUse": [{"hooks": [{"type": "http", "command": "x"}]}]}, "type"),
        ({"PreToolUse": [{"hooks": [{"type": "command", "command": ""}]}]}, "command"),
        ({"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]},
         "timeout"),
        ({"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]},
         "not a regular expression"),
        ({"PreToolUse": [{"hooks": []}]}, "hooks"),
        ({"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "async": True}]}]},
         "async"),
    ],
)  # fmt: skip
def test_a_bad_hook_is_named_and_nothing_loads(data: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"hooks": data})
    assert "hooks" in str(caught.value) and named in str(caught.value)


def test_an_untrusted_workspace_file_brings_no_hooks() -> None:
    loaded = layer_settings(
        SettingsLayer({"hooks": hooks("Stop", "./user.sh")}),
        SettingsLayer.untrusted(
            {"hooks": hooks("PreToolUse", "./planted.sh"), "disableAllHooks": True},
            "ignoring {ignored}",
        ),
    )
    assert loaded.notes == ("ignoring hooks, disableAllHooks",)
    assert commands(loaded.settings.hooks, "Stop") == [("./user.sh", False)]
    assert not loaded.settings.hooks.has("PreToolUse")


def managed(tmp_path: Path, data: dict[str, Any]) -> Any:
    path = tmp_path / "managed-settings.json"
    path.write_text(json.dumps(data))
    return read_managed(path)


def test_managed_hooks_load_always_run_and_come_first(tmp_path: Path) -> None:
    policy = managed(tmp_path, {"hooks": hooks("PreToolUse", "/opt/policy.sh", "Bash")})
    loaded = layer_settings(
        SettingsLayer({"hooks": hooks("PreToolUse", "/opt/policy.sh", "Bash")}),
        SettingsLayer({"hooks": hooks("PreToolUse", "./mine.sh"), "disableAllHooks": True}),
        SettingsLayer({"hooks": {"PreToolUse": []}}),
        managed=policy,
    )
    # The person's own are off; the managed one runs once, as the managed settings' own.
    assert commands(loaded.settings.hooks, "PreToolUse", "Bash") == [("/opt/policy.sh", True)]
    assert "1 hook" in loaded.notes[-1]
    # Layered again over the managed settings (a face's refresh): the managed one still
    # there, once; the person's own back on.
    again = load_settings({"disableAllHooks": False}, base=loaded.settings)
    assert commands(again.hooks, "PreToolUse", "Bash") == [
        ("/opt/policy.sh", True),
        ("./mine.sh", False),
    ]


def test_only_managed_hooks_run_where_the_policy_says_so(tmp_path: Path) -> None:
    policy = managed(
        tmp_path,
        {"allowManagedHooksOnly": True, "hooks": hooks("Stop", "/opt/stop.sh")},
    )
    loaded = layer_settings(SettingsLayer({"hooks": hooks("Stop", "./mine.sh")}), managed=policy)
    assert commands(loaded.settings.hooks, "Stop") == [("/opt/stop.sh", True)]
    assert "hooks: only the managed settings' hooks run here" in loaded.notes[-1]
    assert "only its own hooks" in loaded.notes[-1]


def test_a_managed_file_with_a_hook_agentls_cannot_run_does_not_load(tmp_path: Path) -> None:
    path = tmp_path / "managed-settings.json"
    path.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "command": "x"}]}]}})
    )
    with pytest.raises(ConfigError, match=r"do not load: hooks\.PreToolUse"):
        read_managed(path)
