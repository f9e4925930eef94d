"""Rules from flags and settings files, the workspace file's approval, plan mode."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.e2e.terminal import TerminalRun
from tests.helpers import script, wait_until


def touch_then_end(tmp_path: Path, target: str = "made", name: str = "script.json") -> str:
    return script(
        tmp_path,
        [{"toolCalls": [{"name": "run_command", "input": {"command": f"touch {target}"}}]},
         {"text": "finished"}],
        name,
    )  # fmt: skip


def test_flags_allow_and_deny(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    model = touch_then_end(tmp_path)
    allowed = cli.run("ask", "touch", "--model", model, "--allow", "run_command(touch *)")
    assert allowed.returncode == 0, allowed.stderr
    assert (workspace / "made").exists()
    (workspace / "made").unlink()
    denied = cli.run("ask", "touch", "--model", model, "--yes", "--deny", "run_command(touch *)")
    assert denied.returncode == 0
    assert not (workspace / "made").exists()
    bad = cli.run("ask", "touch", "--model", model, "--allow", "run_command(")
    assert bad.returncode == 2 and "cannot read permission rule" in bad.stderr


def test_user_settings_file(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    (config / "agentls").mkdir(parents=True)
    (config / "agentls" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["run_command(touch *)"]}})
    )
    proc = cli.run("ask", "touch", "--model", touch_then_end(tmp_path), "--yes",
                   env={"XDG_CONFIG_HOME": str(config)})  # fmt: skip
    assert proc.returncode == 0
    assert not (workspace / "made").exists()
    broken = config / "agentls" / "settings.json"
    broken.write_text("{not json")
    proc = cli.run(
        "ask", "x", "--model", touch_then_end(tmp_path), env={"XDG_CONFIG_HOME": str(config)}
    )
    assert proc.returncode == 2 and "is not valid JSON" in proc.stderr


def test_workspace_file_denies_at_once_but_allows_only_once_approved(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    settings = workspace / ".agentls" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({
        "permissions": {"allow": ["run_command(touch *)"], "deny": ["run_command(rm *)"]},
        "mode": "bypass",
    }))  # fmt: skip
    model = touch_then_end(tmp_path)
    first = cli.run("ask", "touch", "--model", model)
    assert not (workspace / "made").exists()  # its allow rule is not trusted yet
    assert 'ignoring permissions.allow, mode="bypass"' in first.stderr
    assert "agentls trust" in first.stderr

    trusted = cli.run("trust")
    assert trusted.returncode == 0 and "Approved" in trusted.stdout
    again = cli.run("ask", "touch", "--model", model)
    assert again.returncode == 0 and (workspace / "made").exists()
    assert "ignoring" not in again.stderr

    settings.write_text(settings.read_text().replace("touch *", "* *"))  # changed since
    changed = cli.run("ask", "touch", "--model", touch_then_end(tmp_path, "other", "s2.json"))
    assert "ignoring" in changed.stderr and not (workspace / "other").exists()
    assert cli.run("trust", "--workspace", str(tmp_path / "nowhere")).returncode == 2


def test_always_allow_saved_in_the_workspace(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    with TerminalRun(["ask", "touch", "--model", touch_then_end(tmp_path)], workspace,
                     cli.env) as run:  # fmt: skip
        wait_until(lambda: run.count("Allow?") == 1, what="the question")
        assert run.count("Always would add: run_command(touch made)") == 1
        run.type("w\n")
        assert run.wait() == 0
    saved = json.loads((workspace / ".agentls" / "settings.json").read_text())
    assert saved == {"permissions": {"allow": ["run_command(touch made)"]}}
    (workspace / "made").unlink()
    # a later run, with nobody to ask, is allowed by the saved (and approved) rule
    later = cli.run("ask", "touch", "--model", touch_then_end(tmp_path, name="s3.json"))
    assert later.returncode == 0 and (workspace / "made").exists()
    assert "ignoring" not in later.stderr


def test_plan_mode_hides_write_and_execute_tools(cli: Cli, tmp_path: Path) -> None:
    expect = {
        "toolsExclude": ["write_file", "edit_file", "run_command"],
        "toolsInclude": ["read_file", "search"],
    }
    model = script(tmp_path, [{"expect": expect, "text": "Here is the plan."}])
    proc = cli.run("ask", "plan it", "--model", model, "--mode", "plan")
    assert proc.returncode == 0, proc.stderr
    assert "Here is the plan." in proc.stdout
