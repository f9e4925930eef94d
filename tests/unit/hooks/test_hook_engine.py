"""The engine with real hook scripts: what a hook reads on stdin and in its environment,
where it runs, how its answers combine, what is logged, and a recording played back."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.observer import HookNotice, NullObserver
from agentls.contracts.tooling import Observation
from agentls.hooks.config import HookSet, MatcherWire
from agentls.hooks.engine import HookEngine, RecordedHooks, RunHooks, SessionFacts
from agentls.hooks.runner import LiveHooks
from agentls.session import events as ev
from agentls.session.events import EventT
from agentls.workspace.sandbox import SandboxSettings, bwrap_problem
from tests.helpers import hook_script

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason="no working bubblewrap")


class Log:
    def __init__(self) -> None:
        self.events: list[ev.HookRun] = []

    def append(self, event: EventT) -> EventT:
        assert isinstance(event, ev.HookRun)
        self.events.append(event)
        return event


class Notices(NullObserver):
    def __init__(self) -> None:
        self.seen: list[HookNotice] = []

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        self.seen.append(notice)


def engine(
    root: Path, wire: dict[str, Any], sandbox: SandboxSettings | None = None
) -> tuple[RunHooks, Log, Notices]:
    parsed = {e: tuple(MatcherWire.model_validate(m) for m in ms) for e, ms in wire.items()}
    hook_set = HookSet.of(parsed)  # type: ignore[arg-type]
    live = LiveHooks(lambda: hook_set, root, lambda: sandbox or SandboxSettings())
    facts = SessionFacts("s-1", "/state/sessions/s-1.jsonl", root)
    log, notices = Log(), Notices()
    hooks = HookEngine(live, facts).bind(log, notices, lambda: "accept-edits")
    hooks.run_id = "run-1"
    return hooks, log, notices


def entry(command: str, matcher: str = "", **more: Any) -> list[dict[str, Any]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command, **more}]}]


async def test_a_hook_reads_claude_codes_input_and_a_minimal_environment(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "x" * 40)
    saved = root / "input.json"
    hook = hook_script(tmp_path, "save.sh", f"cat > {saved}\nenv > {root}/env.txt\n")
    hooks, log, _ = engine(root, {"PreToolUse": entry(hook, "Bash")})
    verdict = await hooks.before_tool(3, "toolu_1", "run_command", {"command": "ls -la"})
    assert verdict is None  # exit 0, no JSON: no opinion
    payload = json.loads(saved.read_text())
    assert payload == {
        "session_id": "s-1", "transcript_path": "/state/sessions/s-1.jsonl", "cwd": str(root),
        "permission_mode": "acceptEdits", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls -la"}, "tool_use_id": "toolu_1",
    }  # fmt: skip
    env = (root / "env.txt").read_text()
    assert f"CLAUDE_PROJECT_DIR={root}\n" in env and f"AGENTLS_PROJECT_DIR={root}\n" in env
    assert "ANTHROPIC_API_KEY" not in env
    (run,) = log.events
    assert (run.run, run.turn, run.hook_event, run.call_id, run.exit_code, run.outcome) == (
        "run-1",
        3,
        "PreToolUse",
        "toolu_1",
        0,
        "",
    )
    # Another tool's call runs no Bash hook.
    saved.unlink()
    assert await hooks.before_tool(4, "toolu_2", "read_file", {"path": "a.py"}) is None
    assert not saved.exists() and len(log.events) == 1


async def test_edit_input_has_claude_codes_fields_and_answers_combine(
    root: Path, tmp_path: Path
) -> None:
    saved = root / "input.json"
    allow = hook_script(
        tmp_path,
        "allow.sh",
        f"cat > {saved}\n"
        """echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'\n""",
    )
    deny = hook_script(tmp_path, "deny.sh", "echo 'not this file' >&2; exit 2\n")
    hooks, log, _ = engine(root, {"PreToolUse": [*entry(allow, "Edit|Write"),
                                                 *entry(deny, "edit_file")]})  # fmt: skip
    given = {"path": "src/a.py", "old_text": "a", "new_text": "b"}
    verdict = await hooks.before_tool(1, "toolu_1", "edit_file", given)
    assert verdict is not None and verdict.permission == "deny"
    assert verdict.source == f"PreToolUse hook `{deny}`: not this file"
    tool_input = json.loads(saved.read_text())["tool_input"]
    assert tool_input == {**given, "file_path": str(root / "src/a.py"),
                          "old_string": "a", "new_string": "b"}  # fmt: skip
    assert sorted(e.outcome for e in log.events) == ["allow", "deny"]
    write = await hooks.before_tool(2, "toolu_2", "write_file", {"path": "b.py", "content": ""})
    assert write is not None and write.permission == "allow"


async def test_a_hook_past_its_timeout_is_killed_reported_and_its_call_asks(
    root: Path, tmp_path: Path
) -> None:
    hook = hook_script(tmp_path, "slow.sh", f"sleep 30; touch {root}/finished\n")
    hooks, log, notices = engine(root, {"PreToolUse": entry(hook, timeout=0.5)})
    verdict = await hooks.before_tool(1, "toolu_1", "run_command", {"command": "make"})
    assert verdict is not None and verdict.permission == "ask"
    assert "timed out after 0.5 s" in verdict.source
    (run,) = log.events
    assert run.timed_out and run.exit_code is None and run.outcome == "error"
    (notice,) = notices.seen
    assert notice.error and notice.event == "PreToolUse"
    assert notice.text == "timed out after 0.5 s; the call asks you"
    assert not (root / "finished").exists()


async def test_what_a_hook_says_is_masked_in_the_log_and_for_the_model(
    root: Path, tmp_path: Path
) -> None:
    key = "sk-ant-api03-" + "k" * 40
    hook = hook_script(tmp_path, "leak.sh", f"echo 'token {key}' >&2; exit 2\n")
    hooks, log, _ = engine(root, {"PostToolUse": entry(hook)})
    observation = Observation("toolu_1", "read_file", "text")
    after = await hooks.after_tool(1, "toolu_1", "read_file", {"path": "a"}, observation)
    assert after.notes and key not in after.notes[0] and "token" in after.notes[0]
    assert key not in log.events[0].stderr


@needs_bwrap
async def test_a_hook_runs_in_the_sandbox_unless_its_entry_says_not(
    root: Path, tmp_path: Path
) -> None:
    marker = Path(tempfile.mkdtemp(prefix="agentls-host-tmp-", dir="/tmp"))
    try:
        hook = hook_script(tmp_path, "look.sh", 'ls /tmp > "$CLAUDE_PROJECT_DIR/seen-$1.txt"\n')
        wire = {"Stop": entry(f"{hook} boxed"), "PreCompact": entry(f"{hook} free",
                                                                   sandbox=False)}  # fmt: skip
        hooks, _, _ = engine(root, wire)
        await hooks.stopping(1, False)
        await hooks.compacting(1, "auto")
        assert marker.name not in (root / "seen-boxed.txt").read_text()  # a private /tmp
        assert marker.name in (root / "seen-free.txt").read_text()  # the host's
    finally:
        marker.rmdir()


@needs_bwrap
async def test_a_sandboxed_hook_cannot_write_control_files(root: Path, tmp_path: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    hook = hook_script(tmp_path, "plant.sh", 'echo "[alias]" >> .git/config; touch formatted.txt\n')
    hooks, log, _ = engine(root, {"Stop": entry(hook)})
    await hooks.stopping(1, False)
    assert (root / ".git" / "config").read_text() == "[core]\n"
    assert log.events[0].exit_code == 0 and (root / "formatted.txt").exists()


async def test_notification_hooks_run_beside_the_question_and_are_waited_for(
    root: Path, tmp_path: Path
) -> None:
    hook = hook_script(tmp_path, "notify.sh", f"cat > {root}/notified.json\n")
    hooks, log, _ = engine(root, {"Notification": entry(hook, "permission_prompt")})
    hooks.waiting(2, "agentls needs your permission to use run_command: make")
    await hooks.settle()
    payload = json.loads((root / "notified.json").read_text())
    assert payload["message"] == "agentls needs your permission to use run_command: make"
    assert payload["notification_type"] == "permission_prompt"
    assert [e.hook_event for e in log.events] == ["Notification"]


async def test_prompt_stop_and_session_events(root: Path, tmp_path: Path) -> None:
    context = hook_script(tmp_path, "context.sh", "echo 'the build is red'\n")
    block = hook_script(
        tmp_path, "block.sh", """echo '{"decision": "block", "reason": "run the tests"}'\n"""
    )
    hooks, _, _ = engine(root, {"UserPromptSubmit": entry(context), "Stop": entry(block),
                                "SessionStart": entry(context)})  # fmt: skip
    submitted = await hooks.prompt_submitted("fix it")
    assert submitted.blocked is None
    assert submitted.context == (f"UserPromptSubmit hook `{context}`: the build is red",)
    assert await hooks.stopping(1, False) == f"Stop hook `{block}`: run the tests"
    assert await hooks.session_started("startup") == (
        f"SessionStart hook `{context}`: the build is red",
    )
    refused = hook_script(tmp_path, "refuse.sh", "echo 'no secrets in prompts' >&2; exit 2\n")
    hooks, _, _ = engine(root, {"UserPromptSubmit": entry(refused)})
    blocked = await hooks.prompt_submitted("here is my key")
    assert blocked.blocked == f"UserPromptSubmit hook `{refused}`: no secrets in prompts"


async def test_a_recording_plays_back_without_running_anything(root: Path, tmp_path: Path) -> None:
    counter = root / "runs.txt"
    hook = hook_script(tmp_path, "count.sh", f"echo run >> {counter}; echo 'nope' >&2; exit 2\n")
    hooks, log, _ = engine(root, {"PreToolUse": entry(hook)})
    live = await hooks.before_tool(1, "toolu_1", "run_command", {"command": "rm x"})
    os.unlink(hook)
    played = HookEngine(RecordedHooks(log.events)).bind(Log())
    again = await played.before_tool(1, "toolu_1", "run_command", {"command": "rm x"})
    assert again == live and counter.read_text() == "run\n"
    # A call the recording has no hooks for gets none.
    assert await played.before_tool(2, "toolu_2", "run_command", {"command": "ls"}) is None
