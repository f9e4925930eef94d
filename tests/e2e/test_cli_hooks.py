"""Hooks through `agentls ask`, real shell scripts as hooks, checked by their effects: a
command that did not run, a file a formatter changed, what the fake Anthropic server was
sent, a marker a hook that must not run never made."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.conftest import AGENTLS, Cli, user_settings
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import hook_script, hooks, script, tool_result_text

MODEL = ("--model", "anthropic:claude-sonnet-4-5")


def ask(cli: Cli, fake: FakeAnthropic, *extra: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    env = {**cli.env, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url,
           **(env or {})}  # fmt: skip
    return subprocess.run(
        [*AGENTLS, "ask", "go", *MODEL, *extra], cwd=cli.workspace, env=env,
        capture_output=True, text=True, timeout=90, input="",
    )  # fmt: skip


def of_kind(cli: Cli, kind: str) -> list[dict[str, Any]]:
    return [e for e in cli.events() if e["kind"] == kind]


GUARD = """count="$CLAUDE_PROJECT_DIR/guard-runs.txt"
echo run >> "$count"
command=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["tool_input"]["command"])')
case "$command" in
  *"git push"*) echo "pushing is for people: ask them" >&2; exit 2 ;;
esac
"""


def test_a_pre_tool_use_hook_exiting_2_keeps_a_command_from_running(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    guard = hook_script(tmp_path / "hooks", "guard.sh", GUARD)
    user_settings(cli, {"hooks": hooks("PreToolUse", guard, "Bash"),
                        "permissions": {"allow": ["run_command(touch *)",
                                                  "run_command(git push *)"]}})  # fmt: skip
    push = ("toolu_1", "run_command", {"command": "touch pushed.txt && git push origin main"})
    with FakeAnthropic([turn("Pushing.", tool_calls=[push]), turn("Stopped.")]) as fake:
        proc = ask(cli, fake, "--yes")
        sent = tool_result_text(fake, 1)
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "pushed.txt").exists()  # the rules allowed it; the hook did not
    assert sent == (
        f"Error (permission_denied): denied by PreToolUse hook `{guard}`: "
        "pushing is for people: ask them"
    )
    (run,) = of_kind(cli, "hook_run")
    assert (run["hookEvent"], run["exitCode"], run["outcome"]) == ("PreToolUse", 2, "deny")
    assert (workspace / "guard-runs.txt").read_text() == "run\n"
    # Replay reproduces the run from the log: the hook is not run again (it is gone).
    Path(guard).unlink()
    (session,) = cli.session_files()
    replayed = cli.run("replay", session.stem)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "the runtime made the same decisions" in replayed.stdout
    assert (workspace / "guard-runs.txt").read_text() == "run\n"


FORMATTER = """import json, pathlib, sys
path = pathlib.Path(json.load(sys.stdin)["tool_input"]["file_path"])
path.write_text(path.read_text().replace("=", " = "))
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                         "additionalContext": "formatted " + path.name}}))
"""


def test_a_post_tool_use_formatter_changes_the_file_and_the_model_is_told(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    formatter = hook_script(tmp_path / "hooks", "fmt.py", FORMATTER, "#!/usr/bin/env python3")
    user_settings(cli, {"hooks": hooks("PostToolUse", formatter, "Edit|Write")})
    write = ("toolu_1", "write_file", {"path": "app.py", "content": "x=1\n"})
    with FakeAnthropic([turn("Writing.", tool_calls=[write]), turn("Written.")]) as fake:
        proc = ask(cli, fake, "--mode", "accept-edits")
        sent = tool_result_text(fake, 1)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "app.py").read_text() == "x = 1\n"
    assert f"PostToolUse hook `{formatter}`: formatted app.py" in sent
    assert "A PostToolUse hook changed app.py after write_file wrote it" in sent


def test_an_untrusted_workspace_hook_never_runs(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "planted-hook-ran"
    planted = {"hooks": {**hooks("SessionStart", f"touch {marker}", sandbox=False),
                         **hooks("PreToolUse", f"touch {marker}", sandbox=False)}}  # fmt: skip
    (workspace / ".agentls").mkdir()
    (workspace / ".agentls" / "settings.json").write_text(json.dumps(planted))
    listing = {"name": "list_files", "input": {"path": "."}}
    model = script(tmp_path, [{"toolCalls": [listing]}, {"text": "listed"}])
    proc = cli.run("ask", "list", "--model", model)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "ignoring hooks until you approve this file" in proc.stderr
    assert of_kind(cli, "hook_run") == []
    assert cli.run("trust").returncode == 0  # the person approves: now they run
    again = cli.run("ask", "list", "--model", model)
    assert again.returncode == 0, again.stderr
    assert marker.exists()


def test_a_hook_allowing_a_denied_command_changes_nothing(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "keep.txt").write_text("kept\n")
    allow = hook_script(
        tmp_path / "hooks",
        "allow.sh",
        """echo '{"hookSpecificOutput":
        {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'\n""",
    )
    user_settings(cli, {"hooks": hooks("PreToolUse", allow, "Bash"),
                        "permissions": {"deny": ["run_command(rm *)"]}})  # fmt: skip
    remove = ("toolu_1", "run_command", {"command": "rm keep.txt"})
    with FakeAnthropic([turn("Removing.", tool_calls=[remove]), turn("Kept.")]) as fake:
        proc = ask(cli, fake, "--yes", "--mode", "bypass")
        sent = tool_result_text(fake, 1)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "keep.txt").read_text() == "kept\n"
    denied = "denied by deny rule run_command(rm *) (matches `rm keep.txt`)"
    assert sent == f"Error (permission_denied): {denied}"
    (decision,) = of_kind(cli, "decision")
    assert decision["verdict"] == "deny" and decision["source"].startswith("deny rule")


def test_a_hook_past_its_timeout_is_reported_and_the_call_asks(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    slow = hook_script(tmp_path / "hooks", "slow.sh", "sleep 30\n")
    user_settings(cli, {"hooks": hooks("PreToolUse", slow, "Bash", timeout=1),
                        "permissions": {"allow": ["run_command(touch *)"]}})  # fmt: skip
    touch = ("toolu_1", "run_command", {"command": "touch made.txt"})
    with FakeAnthropic([turn("Touching.", tool_calls=[touch]), turn("Asked.")]) as fake:
        proc = ask(cli, fake)  # no terminal and no --yes: a question is answered no
        sent = tool_result_text(fake, 1)
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "made.txt").exists()  # the rule allowed it; the call asked
    assert f"! PreToolUse hook `{slow}`: timed out after 1 s; the call asks you" in proc.stderr
    assert sent.startswith("Error (permission_denied): the user denied this call")
    (run,) = of_kind(cli, "hook_run")
    assert run["timedOut"] and run["outcome"] == "error"
    (decision,) = of_kind(cli, "decision")
    assert "the hook timed out after 1 s" in decision["source"]


# From Claude Code's hooks guide, unchanged: a Bash command validator, and a log of the
# commands read with jq.
CLAUDE_CODE_VALIDATOR = r"""import json
import re
import sys

_VALIDATION_RULES = [
    (
        r"\bgrep\b(?!.*\|)",
        "Use 'rg' (ripgrep) instead of 'grep' for better performance and features",
    ),
    (
        r"\bfind\s+\S+\s+-name\b",
        "Use 'rg --files | rg pattern' or 'rg --files -g pattern' instead of 'find -name' "
        "for better performance",
    ),
]


def _validate_command(command: str) -> list[str]:
    issues = []
    for pattern, message in _VALIDATION_RULES:
        if re.search(pattern, command):
            issues.append(message)
    return issues


try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

tool_name = input_data.get("tool_name", "")
if tool_name != "Bash":
    sys.exit(0)

tool_input = input_data.get("tool_input", {})
command = tool_input.get("command", "")

if not command:
    sys.exit(0)

issues = _validate_command(command)
if issues:
    for message in issues:
        print(f"• {message}", file=sys.stderr)
    # Exit code 2 blocks tool call and shows stderr to Claude
    sys.exit(2)
"""
CLAUDE_CODE_LOGGER = (
    """jq -r '"\\(.tool_input.command) - \\(.tool_input.description // "No description")"'"""
    ' >> "$CLAUDE_PROJECT_DIR/bash-command-log.txt"'
)


def test_claude_code_hook_scripts_matching_bash_work_unchanged(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    validator = hook_script(tmp_path / "hooks", "bash_validator.py", CLAUDE_CODE_VALIDATOR,
                            "#!/usr/bin/env python3")  # fmt: skip
    claude_settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": validator},
        {"type": "command", "command": CLAUDE_CODE_LOGGER},
    ]}]}}  # fmt: skip
    user_settings(cli, claude_settings)
    (workspace / "notes.txt").write_text("TODO: ship\n")
    grep = ("toolu_1", "run_command", {"command": "grep -r TODO . > found.txt"})
    cat = ("toolu_2", "run_command", {"command": "cat notes.txt > found.txt"})
    replies = [turn("Searching.", tool_calls=[grep]), turn("Again.", tool_calls=[cat]),
               turn("Found.")]  # fmt: skip
    with FakeAnthropic(replies) as fake:
        proc = ask(cli, fake, "--yes")
        blocked, ran = tool_result_text(fake, 1), tool_result_text(fake, 2)
    assert proc.returncode == 0, proc.stderr
    assert "• Use 'rg' (ripgrep) instead of 'grep'" in blocked
    assert (workspace / "found.txt").read_text() == "TODO: ship\n"  # the second command ran
    assert "exit code" not in ran or "exit code 0" in ran
    logged = (workspace / "bash-command-log.txt").read_text().splitlines()
    assert logged == ["grep -r TODO . > found.txt - No description",
                      "cat notes.txt > found.txt - No description"]  # fmt: skip


def test_a_managed_hook_applies_and_a_user_setting_cannot_remove_it(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    policy_hook = hook_script(
        tmp_path / "hooks", "policy.sh", "echo 'new files need a ticket' >&2; exit 2\n"
    )
    managed = tmp_path / "etc" / "managed-settings.json"
    managed.parent.mkdir()
    managed.write_text(json.dumps({"hooks": hooks("PreToolUse", policy_hook, "Write")}))
    user_settings(cli, {"disableAllHooks": True, "hooks": {"PreToolUse": []},
                        "permissions": {"allow": ["write_file"]}})  # fmt: skip
    write = ("toolu_1", "write_file", {"path": "new.txt", "content": "x\n"})
    env = {"AGENTLS_MANAGED_SETTINGS": str(managed)}
    with FakeAnthropic([turn("Writing.", tool_calls=[write]), turn("Refused.")]) as fake:
        proc = ask(cli, fake, "--mode", "bypass", env=env)
        sent = tool_result_text(fake, 1)
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "new.txt").exists()
    assert sent.endswith("new files need a ticket")
    assert "managed settings in force" in proc.stderr and "1 hook" in proc.stderr
    (run,) = of_kind(cli, "hook_run")
    assert run["managed"] and run["outcome"] == "deny"


def test_prompt_session_and_stop_hooks(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    source = """python3 -c 'import json, sys; print(json.load(sys.stdin)["source"])'"""
    start = hook_script(tmp_path / "hooks", "start.sh", f'echo "session started ($({source}))"\n')
    prompt_of = source.replace('"source"', '"prompt"')
    context = hook_script(
        tmp_path / "hooks", "context.sh", f'echo "the build is red ($({prompt_of}))"\n'
    )
    # Blocks the first stop only: Claude Code's stop_hook_active says it already did.
    stop = hook_script(
        tmp_path / "hooks",
        "stop.sh",
        """if grep -q '"stop_hook_active": true'; then exit 0; fi
echo '{"decision": "block", "reason": "run the tests before you stop"}'\n""",
    )
    end = hook_script(tmp_path / "hooks", "end.sh", 'cat > "$CLAUDE_PROJECT_DIR/ended.json"\n')
    user_settings(cli, {"hooks": {
        **hooks("SessionStart", start), **hooks("UserPromptSubmit", context),
        **hooks("Stop", stop), **hooks("SessionEnd", end),
    }})  # fmt: skip
    with FakeAnthropic([turn("Done."), turn("Tests pass. Done.")]) as fake:
        proc = ask(cli, fake)
        first, second = (r.body["messages"] for r in fake.requests)
    assert proc.returncode == 0, proc.stderr
    prompt = [b["text"] for b in first[0]["content"]]
    assert prompt == ["go", f"SessionStart hook `{start}`: session started (startup)",
                      f"UserPromptSubmit hook `{context}`: the build is red (go)"]  # fmt: skip
    assert second[-1]["role"] == "user"
    said = [b["text"] for b in second[-1]["content"]]
    assert said == [f"Stop hook `{stop}`: run the tests before you stop"]
    ended = json.loads((workspace / "ended.json").read_text())
    assert ended["hook_event_name"] == "SessionEnd" and ended["reason"] == "other"
    events = [e["hookEvent"] for e in of_kind(cli, "hook_run")]
    assert events == ["SessionStart", "UserPromptSubmit", "Stop", "Stop", "SessionEnd"]


def test_a_blocked_prompt_never_reaches_the_model(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    refuse = hook_script(tmp_path / "hooks", "refuse.sh", "echo 'no keys in prompts' >&2; exit 2\n")
    user_settings(cli, {"hooks": hooks("UserPromptSubmit", refuse)})
    with FakeAnthropic([turn("Never.")]) as fake:
        proc = ask(cli, fake)
        assert fake.requests == []
    assert proc.returncode == 6, proc.stderr  # permission_denied
    assert (
        f"the prompt was blocked: UserPromptSubmit hook `{refuse}`: no keys in prompts"
        in proc.stderr
    )
    assert of_kind(cli, "user_message") == []
