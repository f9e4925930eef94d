"""The machine's managed settings through `agentls ask` and `agentls doctor`, each case
checked by its effect: a file not made, a command that ran in the sandbox, no run at all."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli
from tests.helpers import script


def write(tmp_path: Path, target: str) -> str:
    call = {"name": "write_file", "input": {"path": target, "content": "written\n"}}
    return script(tmp_path, [{"toolCalls": [call]}, {"text": "finished"}], f"{target}.json")


def last_events(cli: Cli) -> list[dict[str, Any]]:
    newest = max(cli.session_files(), key=lambda p: p.stat().st_mtime_ns)
    return [json.loads(line) for line in newest.read_text().splitlines() if line.strip()]


def managed(tmp_path: Path, data: Any) -> dict[str, str]:
    path = tmp_path / "etc" / "managed-settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return {"AGENTLS_MANAGED_SETTINGS": str(path)}


def user_settings(tmp_path: Path, data: dict[str, Any]) -> dict[str, str]:
    config = tmp_path / "config"
    (config / "agentls").mkdir(parents=True, exist_ok=True)
    (config / "agentls" / "settings.json").write_text(json.dumps(data))
    return {"XDG_CONFIG_HOME": str(config)}


def test_a_managed_deny_holds_against_a_user_allow_and_bypass_mode(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    person = user_settings(tmp_path, {"permissions": {"allow": ["write_file"]}})
    free = cli.run("ask", "write", "--model", write(tmp_path, "free.txt"), "--mode", "bypass",
                   env=person)  # fmt: skip
    assert free.returncode == 0 and (workspace / "free.txt").exists()  # without the policy

    policy = managed(tmp_path, {"permissions": {"deny": ["write_file(blocked.txt)"]}})
    proc = cli.run("ask", "write", "--model", write(tmp_path, "blocked.txt"), "--mode", "bypass",
                   env={**person, **policy})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "blocked.txt").exists()
    assert "managed settings in force" in proc.stderr and "1 deny rule" in proc.stderr
    assert "permissions.allow write_file" in proc.stderr  # the person's setting it overrode
    decision = next(e for e in last_events(cli) if e["kind"] == "decision")
    assert decision["verdict"] == "deny" and "write_file(blocked.txt)" in decision["source"]


def test_bypass_mode_turned_off_asks_again(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    policy = managed(tmp_path, {"permissions": {"disableBypassMode": True}})
    proc = cli.run("ask", "write", "--model", write(tmp_path, "made.txt"), "--mode", "bypass",
                   env=policy)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "made.txt").exists()  # the default mode asks; no one to answer
    assert 'mode "bypass"' in proc.stderr
    started = next(e for e in cli.events() if e["kind"] == "run_started")
    assert started["mode"] == "default"


def test_a_required_sandbox_holds_against_a_workspace_sandbox_off(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    # Outside the sandbox a command sees the host's /tmp; inside it, a private one.
    marker = Path(tempfile.mkdtemp(prefix="agentls-host-tmp-", dir="/tmp"))
    try:
        (workspace / ".agentls").mkdir()
        (workspace / ".agentls" / "settings.json").write_text(json.dumps({"sandbox": "off"}))
        assert cli.run("trust").returncode == 0  # the person approved the workspace's file
        listing = {"name": "run_command", "input": {"command": "ls /tmp > seen.txt"}}
        model = script(tmp_path, [{"toolCalls": [listing]}, {"text": "listed"}])
        off = cli.run("ask", "list", "--model", model, "--yes")
        assert off.returncode == 0, off.stderr
        assert marker.name in (workspace / "seen.txt").read_text()  # ran unsandboxed
        (workspace / "seen.txt").unlink()

        policy = managed(tmp_path, {"sandbox": "required"})
        proc = cli.run("ask", "list", "--model", model, "--yes", env=policy)
        assert proc.returncode == 0, proc.stderr
        assert marker.name not in (workspace / "seen.txt").read_text()  # ran in the sandbox
        assert 'sandbox "off"' in proc.stderr and "managed settings in force" in proc.stderr
    finally:
        marker.rmdir()


def test_a_broken_managed_file_stops_the_ask(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    for text, why in (("{not json", "not valid JSON"), ('{"hooks": {"Sometime": []}}', "hooks"),
                      ('{"sandbox": "off"}', "sandbox")):  # fmt: skip
        policy = managed(tmp_path, text)
        proc = cli.run("ask", "write", "--model", write(tmp_path, "made.txt"), "--yes",
                       env=policy)  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "managed-settings.json do not load" in proc.stderr and why in proc.stderr
        assert "No ask runs" in proc.stderr
        assert not (workspace / "made.txt").exists()
        assert cli.session_files() == []  # nothing was started


def test_a_model_it_does_not_allow_stops_the_ask(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    policy = managed(tmp_path, {"allowedProviders": ["anthropic"]})
    proc = cli.run("ask", "write", "--model", write(tmp_path, "made.txt"), "--yes", env=policy)
    assert proc.returncode == 2 and "is not allowed here" in proc.stderr
    assert not (workspace / "made.txt").exists()


def test_the_doctor_says_what_the_policy_holds_and_overrides(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    env = {
        **managed(tmp_path, {"sandbox": "required", "maxTurns": 5}),
        **user_settings(tmp_path, {"maxTurns": 40, "telemetry": {"enabled": True}}),
    }
    report = json.loads(cli.run("doctor", "--json", "--model", "scripted:demo", env=env).stdout)
    state = report["settings"]["managed"]
    assert state["inForce"] and state["exists"]
    assert "sandbox required" in state["enforces"]
    assert any(o.startswith("maxTurns 40") for o in state["overrides"])
    assert report["telemetry"]["enabled"] and report["telemetry"]["protocol"] == "http/protobuf"
    text = cli.run("doctor", "--model", "scripted:demo", env=env).stdout
    assert "IN FORCE" in text and "maxTurns 40" in text

    broken = cli.run("doctor", "--json", env=managed(tmp_path, "{not json"))
    assert broken.returncode == 2
    report = json.loads(broken.stdout)
    assert not report["settings"]["managed"]["inForce"]
    assert any("do not load" in b for b in report["blocking"])
