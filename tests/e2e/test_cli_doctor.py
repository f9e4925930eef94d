"""`agentls doctor`: what blocks the next ask, exit 2 when something does, and --json."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli

KEY = "sk-ant-secret-value-4242"
TOP_LEVEL = {"version", "python", "workspace", "model", "ripgrep", "sandbox", "folders",
             "telemetry", "instructions", "settings", "mcpServers", "languageServers", "editors",
             "blocking", "warnings", "ok", "warmProcess"}  # fmt: skip


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
        "basedpyright", "pyright", "ruff", "typescript", "gopls", "rust-analyzer",
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


def fake_server(folder: Path, command: str) -> None:
    folder.mkdir(exist_ok=True)
    program = folder / command
    program.write_text("#!/bin/sh\necho 9.8.7\n")
    program.chmod(0o755)


def test_language_servers_say_which_would_run_and_why_not(cli: Cli, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    for command in ("basedpyright-langserver", "basedpyright", "pyright-langserver", "ruff"):
        fake_server(bin_dir, command)
    user = tmp_path / "home/.config/agentls/settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"languageServers": {
        "ruff": None,
        "taplo": {"command": "taplo", "args": ["lsp", "stdio"], "filePatterns": ["*.toml"],
                  "install": "cargo install taplo-cli"},
    }}))  # fmt: skip
    (cli.workspace / "main.go").write_text("package main\n")
    env = home_env(tmp_path, ANTHROPIC_API_KEY=KEY, PATH=f"{bin_dir}:/usr/bin:/bin")
    report = json.loads(cli.run("doctor", "--json", env=env).stdout)
    servers = {s["name"]: s for s in report["languageServers"]}
    assert list(servers) == [
        "basedpyright", "pyright", "ruff", "typescript", "gopls", "rust-analyzer", "taplo",
    ]  # fmt: skip
    based = servers["basedpyright"]
    assert based["wouldRun"] is True and based["reason"] is None and based["install"] is None
    assert based["path"] == str(bin_dir / "basedpyright-langserver")
    assert based["version"] == "9.8.7" and based["filePatterns"] == ["*.py", "*.pyi"]
    assert servers["pyright"]["found"] is True and servers["pyright"]["wouldRun"] is False
    assert servers["pyright"]["reason"] == "basedpyright runs instead (both serve the same files)"
    assert servers["ruff"]["wouldRun"] is False
    assert servers["ruff"]["reason"] == "turned off in the languageServers setting"
    gopls = servers["gopls"]
    assert (gopls["found"], gopls["wouldRun"]) == (False, False)
    assert gopls["reason"] == "gopls was not found on PATH"
    assert gopls["install"] == "go install golang.org/x/tools/gopls@latest"
    assert servers["taplo"]["command"] == "taplo"
    assert servers["taplo"]["install"] == "cargo install taplo-cli"
    assert any(w.startswith("no language server would check *.go here") for w in report["warnings"])
    text = cli.run("doctor", env=env).stdout
    assert "language servers    basedpyright 9.8.7\n" in text
    gopls_row = "  gopls             not used: gopls was not found on PATH; install it: go install"
    assert gopls_row in text
    assert "  ruff              not used: turned off in the languageServers setting\n" in text


def test_the_doctor_lists_the_instruction_files_and_memories(cli: Cli, tmp_path: Path) -> None:
    (cli.workspace / "AGENTS.md").write_text("Run pnpm test.\n")
    assert cli.run("memory", "add", "Use pnpm.").returncode == 0
    done = cli.run("doctor", "--json", env=home_env(tmp_path, ANTHROPIC_API_KEY=KEY))
    instructions = json.loads(done.stdout)["instructions"]
    assert [(f["path"], f["bytes"]) for f in instructions["files"]] == [("AGENTS.md", 15)]
    assert instructions["memories"] == 1
    text = cli.run("doctor", env=home_env(tmp_path, ANTHROPIC_API_KEY=KEY)).stdout
    assert "AGENTS.md (15 B); 1 memory" in text
