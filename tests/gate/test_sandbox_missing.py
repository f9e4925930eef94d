"""Issue class 4, without bubblewrap: the person is told in every face (the CLI and the
editor at start, an ACP client once per session with the first command's output), and
the keys of the agentls process still stay out of every command's environment."""

from __future__ import annotations

import secrets
import shutil
import subprocess
from pathlib import Path

import pytest

from agentls.conversation.settings import Settings, load_settings
from agentls.lsp.editor_settings import settings_notes
from agentls.workspace import sandbox
from tests.e2e.acp.client import RecordingClient, agent
from tests.gate.boundary import everything_written
from tests.gate.harness import Attack, command
from tests.helpers import write_script

KEY = "sk-ant-api03-" + secrets.token_urlsafe(40)
TOKEN = "ghp_" + secrets.token_hex(18)
TOOLS = ("bash", "sh", "env", "printenv", "cat", "touch", "python3", "git")


def path_without_bwrap(folder: Path) -> str:
    folder.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


@pytest.fixture(scope="module")
def run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Attack, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("nobwrap")
    attack = Attack(root, settings={"sandbox": "auto"})
    attack.add(
        command("env > env.txt"),
        command("printenv ANTHROPIC_API_KEY GITHUB_TOKEN > printenv.txt; true"),
        command('echo "key=$ANTHROPIC_API_KEY token=$GITHUB_TOKEN"'),
        command("python3 -c \"import os; open('py-env.txt', 'w').write(repr(dict(os.environ)))\""),
        command("touch ran"),
    )
    env = {
        "PATH": path_without_bwrap(root / "bin"),
        "ANTHROPIC_API_KEY": KEY,
        "GITHUB_TOKEN": TOKEN,
    }
    return attack, attack.run("--yes", env=env)


def test_commands_ran_unsandboxed(run: tuple[Attack, subprocess.CompletedProcess[str]]) -> None:
    attack, proc = run
    assert (attack.workspace / "ran").exists(), proc.stderr[-3000:]


def test_the_cli_says_so_at_start(run: tuple[Attack, subprocess.CompletedProcess[str]]) -> None:
    _, proc = run
    first = proc.stderr.splitlines()[:3]
    assert any("bwrap" in line and "sandbox" in line.lower() for line in first), proc.stderr


@pytest.mark.parametrize("value", [KEY, TOKEN], ids=["api-key", "token"])
def test_keys_stay_out_of_the_environment(
    run: tuple[Attack, subprocess.CompletedProcess[str]], value: str
) -> None:
    attack, proc = run
    assert value not in everything_written(attack, proc.stdout + proc.stderr)
    assert "PATH=" in (attack.workspace / "env.txt").read_text()  # the dump did happen


def test_the_editor_is_told_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox.bwrap_problem.cache_clear()
    monkeypatch.setattr("shutil.which", lambda name, path=None: None)  # sandbox imports it
    try:
        notes = settings_notes(Settings())
        assert any("bwrap" in note for note in notes)
        assert not settings_notes(load_settings({"sandbox": "off"}))  # turned off on purpose: quiet
    finally:
        sandbox.bwrap_problem.cache_clear()


async def acp_session_without_bwrap(root: Path, monkeypatch: pytest.MonkeyPatch) -> RecordingClient:
    """Open one ACP session with bwrap off PATH; what the client saw until it was ready."""
    workspace = root / "project"
    workspace.mkdir()
    monkeypatch.setenv("PATH", path_without_bwrap(root / "bin"))
    model = write_script(root / "script.json", [{"text": "Hello."}])
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await client.wait_for(lambda: "available_commands_update" in client.kinds())
    return client


async def test_an_acp_agent_says_so_at_start_in_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = await acp_session_without_bwrap(tmp_path, monkeypatch)
    # stdout carries only ACP frames: the agent's own log (stderr) says it at start; the
    # person reads it once per session, with the first command's output
    # (tests/e2e/acp/test_acp_sessions_and_requests.py), not as a chat message.
    assert "bwrap" in (tmp_path / "agent-stderr.log").read_text()
    assert "sandbox" not in client.text()


async def test_an_acp_client_hears_nothing_when_the_sandbox_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config" / "agentls"  # XDG_CONFIG_HOME (tests/conftest.py)
    config.mkdir(parents=True)
    (config / "settings.json").write_text('{"sandbox": "off"}')
    client = await acp_session_without_bwrap(tmp_path, monkeypatch)
    assert "agent_message_chunk" not in client.kinds()
