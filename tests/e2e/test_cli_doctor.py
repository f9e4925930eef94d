"""`agentls doctor`: what blocks the next ask, exit 2 when something does, and --json."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli

KEY = "sk-ant-secret-value-4242"
TOP_LEVEL = {"version", "python", "workspace", "model", "ripgrep", "sandbox", "folders",
             "settings", "mcpServers", "languageServers", "editors", "blocking", "warnings",
             "ok"}  # fmt: skip


def home_env(tmp_path: Path, **more: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"), **more}  # fmt: skip


def test_no_key_blocks_the_ask_and_exits_2(cli: Cli, tmp_path: Path) -> None:
    done = cli.run("doctor", env=home_env(tmp_path))
    assert done.returncode == 2, done.stderr
    assert "ANTHROPIC_API_KEY is NOT set" in done.stdout
    assert "BLOCKING: anthropic:claude-sonnet-4-5 needs an API key" in done.stdout
    assert done.stdout.rstrip().endswith("not ready: fix what is BLOCKING above")


def test_with_a_key_it_is_ready_and_never_prints_the_key(cli: Cli, tmp_path: Path) -> None:
    env = home_env(tmp_path, ANTHROPIC_API_KEY=KEY)
    text = cli.run("doctor", env=env)
    assert text.returncode == 0, text.stdout
    assert "ANTHROPIC_API_KEY is set" in text.stdout and "ready to ask" in text.stdout
    done = cli.run("doctor", "--json", env=env)
    assert done.returncode == 0
    assert KEY not in text.stdout + text.stderr + done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert set(report) == TOP_LEVEL
    assert report["ok"] is True and report["blocking"] == []
    assert (
        report["model"]["keySet"] is True and report["model"]["keyVariable"] == "ANTHROPIC_API_KEY"
    )
    assert report["workspace"] == str(cli.workspace.resolve())
    assert report["folders"] == {"state": str(cli.state),
                                 "config": str(tmp_path / "home/.config/agentls")}  # fmt: skip
    assert isinstance(report["sandbox"]["on"], bool) and report["sandbox"]["detail"]
    assert [s["name"] for s in report["languageServers"]] == [
        "basedpyright-langserver", "pyright-langserver", "ruff", "typescript-language-server",
        "gopls", "rust-analyzer",
    ]  # fmt: skip
    assert report["editors"] == []


def test_the_workspace_file_is_reported_untrusted_until_approved(cli: Cli, tmp_path: Path) -> None:
    env = home_env(tmp_path)
    settings = cli.workspace / ".agentls" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps({"model": "scripted:demo", "mcpServers": {"docs": {"command": "x"}}})
    )
    report = json.loads(cli.run("doctor", "--json", env=env).stdout)
    assert report["settings"]["workspace"] == {"path": str(settings.resolve()), "exists": True,
                                               "trusted": False}  # fmt: skip
    assert any("is not approved" in w for w in report["warnings"])
    # Until approved, the file neither names a server nor routes to another model.
    assert report["mcpServers"] == [] and report["model"]["id"] == "anthropic:claude-sonnet-4-5"
    assert cli.run("trust", env=env).returncode == 0
    trusted = json.loads(cli.run("doctor", "--json", env=env).stdout)
    assert trusted["settings"]["workspace"]["trusted"] is True
    assert trusted["mcpServers"] == ["docs"]  # listed, never started
    assert trusted["model"]["id"] == "scripted:demo" and trusted["ok"] is True


def test_a_settings_file_that_does_not_load_blocks(cli: Cli, tmp_path: Path) -> None:
    env = home_env(tmp_path, ANTHROPIC_API_KEY=KEY)
    user = tmp_path / "home/.config/agentls/settings.json"
    user.parent.mkdir(parents=True)
    user.write_text("{not json")
    done = cli.run("doctor", "--json", env=env)
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert report["settings"]["user"]["error"].startswith(f"{user} is not valid JSON")
    assert report["blocking"] == [report["settings"]["user"]["error"]]


def test_model_flag_and_missing_workspace(cli: Cli, tmp_path: Path) -> None:
    env = home_env(tmp_path)
    assert cli.run("doctor", "--model", "scripted:demo", env=env).returncode == 0
    missing = cli.run("doctor", "--model", "scripted:/no/such/script.json", env=env)
    assert missing.returncode == 2 and "no script file at /no/such/script.json" in missing.stdout
    openai = json.loads(cli.run("doctor", "--json", "--model", "openai:gpt-4o", env=env).stdout)
    assert openai["blocking"] == ["openai:gpt-4o needs OPENAI_API_KEY, or a local server's URL "
                                  "in OPENAI_BASE_URL or the baseUrl setting"]  # fmt: skip
    gone = cli.run("doctor", "--workspace", str(tmp_path / "nowhere"), env=env)
    assert gone.returncode == 2 and "is not a directory" in gone.stderr
