"""Secrets in the settings never reach the state folder or the doctor's report: a run logs
its settings masked as tool output is, with `sandboxEnv` values hidden outright."""

from __future__ import annotations

import json
from pathlib import Path

from tests import helpers
from tests.e2e.conftest import Cli

NPM_TOKEN = "npm_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
GITHUB_TOKEN = "ghp_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
PASSWORD = "hunter2"
SECRETS = (NPM_TOKEN, GITHUB_TOKEN, PASSWORD, NPM_TOKEN[:12], GITHUB_TOKEN[:12])


def settings_with_secrets(cli: Cli) -> None:
    path = Path(cli.env["XDG_CONFIG_HOME"]) / "agentls" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "sandboxEnv": {"NPM_TOKEN": NPM_TOKEN, "PLAIN_SETTING": "1"},
        "baseUrl": f"http://person:{PASSWORD}@localhost:9/v1",
        "mcpServers": {
            "remote": {"url": f"https://user:{PASSWORD}@example.invalid/mcp"},
            "local": {"command": "agentls-no-such-mcp-server", "args": ["--token", GITHUB_TOKEN]},
        },
    }))  # fmt: skip


def script(tmp_path: Path) -> str:
    return helpers.script(tmp_path, [
        {"toolCalls": [{"name": "run_command", "input": {"command": "echo ran"}}]},
        {"text": "done"},
    ])  # fmt: skip


def state_text(state: Path) -> str:
    return "\n".join(
        p.read_text("utf-8", errors="replace") for p in sorted(state.rglob("*")) if p.is_file()
    )


def test_settings_secrets_are_masked_in_the_log_the_doctor_and_show(
    cli: Cli, tmp_path: Path
) -> None:
    settings_with_secrets(cli)
    model = script(tmp_path)
    asked = cli.run("ask", "run it", "--model", model, "--yes")
    assert asked.returncode == 0, asked.stderr
    (started,) = [e for e in cli.events() if e["kind"] == "run_started"]
    logged = started["settings"]
    # the names are kept: the variable, the servers, the URL's user and host, the option
    assert logged["sandboxEnv"] == {"NPM_TOKEN": "<hidden>", "PLAIN_SETTING": "<hidden>"}
    assert logged["mcpServers"]["remote"]["url"].startswith("https://user:")
    assert logged["mcpServers"]["remote"]["url"].endswith("@example.invalid/mcp")
    assert logged["mcpServers"]["local"]["args"][0] == "--token"
    assert logged["mcpServers"]["local"]["command"] == "agentls-no-such-mcp-server"

    session = cli.session_files()[0].stem
    shown = cli.run("show", session)
    assert shown.returncode == 0, shown.stderr
    replayed = cli.run("replay", session)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    doctor = cli.run("doctor", "--json", "--model", "openai:local-model")
    report = json.loads(doctor.stdout)
    assert report["mcpServers"] == ["local", "remote"]
    assert report["model"]["baseUrl"] == "http://person:[password masked]@localhost:9/v1"
    listed = cli.run("mcp", "list", "--json")

    written = state_text(cli.state)
    assert "NPM_TOKEN" in written and "example.invalid" in written
    for secret in SECRETS:
        assert secret not in written, f"{secret} is in the state folder"
        for output in (asked, shown, replayed, doctor, listed):
            assert secret not in output.stdout + output.stderr, f"{secret} in {output.args}"
