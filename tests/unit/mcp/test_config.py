"""`mcpServers` settings: shapes, errors, `${VAR}`, merging, the log, and the workspace file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import load_settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.mcp.config import McpServerConfig, expand, for_log


def test_stdio_and_http_shapes() -> None:
    settings = load_settings({"mcpServers": {
        "github": {"command": "npx", "args": ["-y", "server-github"], "env": {"T": "${T}"}},
        "docs": {"type": "http", "url": "https://example.test/mcp", "headers": {"A": "b"}},
        "off": {"disabled": True},
    }})  # fmt: skip
    github, docs = settings.mcp_servers["github"], settings.mcp_servers["docs"]
    assert github.transport == "stdio" and github.target() == "npx -y server-github"
    assert docs.transport == "http" and docs.target() == "https://example.test/mcp"
    assert settings.mcp_servers["off"].disabled
    assert github.call_timeout_seconds == 120 and github.start_timeout_seconds == 30


@pytest.mark.parametrize(
    ("server", "problem"),
    [
        ({"command": "x", "url": "http://y"}, "give either command"),
        ({}, "give either command"),
        ({"type": "sse", "url": "http://y"}, "type"),
        ({"type": "stdio", "url": "http://y"}, 'type "stdio" needs a command'),
        ({"command": "x", "headers": {"a": "b"}}, "url and headers are for HTTP"),
        ({"url": "http://y", "args": ["a"]}, "args, env and cwd are for stdio"),
        ({"command": "x", "autoApprove": ["*"]}, "autoApprove: Extra inputs"),
        ({"command": ""}, "command"),
        ({"command": "x", "callTimeoutSeconds": 0}, "callTimeoutSeconds"),
    ],
)
def test_bad_servers_are_named(server: dict[str, object], problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"mcpServers": {"s": server}})
    assert "mcpServers.s" in str(caught.value) and problem in str(caught.value)


def test_bad_names_and_shapes() -> None:
    with pytest.raises(ConfigError, match="server name 'a b'"):
        load_settings({"mcpServers": {"a b": {"command": "x"}}})
    with pytest.raises(ConfigError, match="mcpServers"):
        load_settings({"mcpServers": ["x"]})


def test_expand_reads_the_environment() -> None:
    env = {"TOKEN": "t0k", "EMPTY": ""}
    assert expand("Bearer ${TOKEN}", env) == "Bearer t0k"
    assert expand("${MISSING:-fallback}/${EMPTY}", env) == "fallback/"
    assert expand("no $TOKEN braces", env) == "no $TOKEN braces"
    with pytest.raises(KeyError, match="MISSING"):
        expand("${MISSING}", env)


def test_servers_add_up_by_name_and_a_later_source_can_disable_one() -> None:
    user = load_settings({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}})
    merged = load_settings({"mcpServers": {"b": {"disabled": True}, "c": {"url": "u"}}}, base=user)
    assert set(merged.mcp_servers) == {"a", "b", "c"}
    assert merged.mcp_servers["b"].disabled and merged.mcp_servers["a"].command == "x"


def test_the_log_hides_env_and_header_values_but_merging_keeps_them() -> None:
    server = {"command": "x", "env": {"TOKEN": "ghp_real", "REF": "${GITHUB_TOKEN}"}}
    settings = load_settings({"mcpServers": {"gh": server}})
    logged = settings.to_log()["mcpServers"]["gh"]
    assert logged["env"] == {"TOKEN": "<hidden>", "REF": "${GITHUB_TOKEN}"}
    again = load_settings({"maxTurns": 3}, base=settings)
    assert again.mcp_servers["gh"].env["TOKEN"] == "ghp_real"
    assert for_log({"headers": {"A": "Bearer x ${T}"}})["headers"] == {"A": "<hidden>"}


GITHUB_TOKEN = "ghp_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
NPM_TOKEN = "npm_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"


def test_the_log_masks_secrets_wherever_they_are_in_the_settings() -> None:
    settings = load_settings({
        "sandboxEnv": {"NPM_TOKEN": NPM_TOKEN, "LANG_SETTING": "plain"},
        "baseUrl": "http://admin:hunter2@localhost:11434/v1",
        "permissions": {"allow": [f"run_command(npm publish --otp {NPM_TOKEN})"]},
        "mcpServers": {
            "remote": {"url": "https://user:hunter2@example.invalid/mcp?token=Q7x9Lm2Pz4Kw8Rt5Yv"},
            "local": {"command": "srv", "args": [GITHUB_TOKEN, "--api-key", "plain-but-secret",
                                                 "--password=letmein", "--key", "${KEY}",
                                                 "--verbose", "x"]},
        },
    })  # fmt: skip
    logged = settings.to_log()
    text = json.dumps(logged)
    for secret in (NPM_TOKEN, GITHUB_TOKEN, "hunter2", "plain-but-secret", "letmein",
                   "Q7x9Lm2Pz4Kw8Rt5Yv", "plain"):  # fmt: skip
        assert secret not in text
    assert logged["sandboxEnv"] == {"NPM_TOKEN": "<hidden>", "LANG_SETTING": "<hidden>"}
    assert logged["baseUrl"] == "http://admin:[password masked]@localhost:11434/v1"
    remote, local = logged["mcpServers"]["remote"], logged["mcpServers"]["local"]
    assert remote["url"].startswith("https://user:[password masked]@example.invalid/mcp?token=")
    assert local["args"] == [
        "ghp_Zy…[secret masked]", "--api-key", "<hidden>", "--password=<hidden>",
        "--key", "${KEY}", "--verbose", "x",
    ]  # fmt: skip
    # what runs is the real thing; only the log and what is shown are masked
    assert settings.sandbox.env == (("NPM_TOKEN", NPM_TOKEN), ("LANG_SETTING", "plain"))
    assert settings.mcp_servers["local"].args[0] == GITHUB_TOKEN
    assert "hunter2" not in settings.mcp_servers["remote"].target()
    assert GITHUB_TOKEN not in settings.mcp_servers["local"].target()
    # the logged settings load again (replay rebuilds runs from them)
    again = load_settings(logged)
    assert again.sandbox.env == (("NPM_TOKEN", "<hidden>"), ("LANG_SETTING", "<hidden>"))
    assert again.to_log() == logged


def test_disabled_needs_no_transport() -> None:
    assert McpServerConfig(disabled=True).disabled


def test_unapproved_workspace_file_cannot_start_servers(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".agentls").mkdir(parents=True)
    path = root / ".agentls" / "settings.json"
    path.write_text(json.dumps({"mcpServers": {"evil": {"command": "curl"}}, "maxTurns": 4}))
    files = SettingsFiles(tmp_path / "state")
    loaded = files.load(root)
    assert not loaded.settings.mcp_servers and loaded.settings.limits.max_turns == 4
    assert any("mcpServers" in note and "agentls trust" in note for note in loaded.notes)
    files.trust(path)
    loaded = files.load(root)
    assert list(loaded.settings.mcp_servers) == ["evil"] and not loaded.notes
