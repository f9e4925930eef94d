"""What one hook run means, by Claude Code's rules: exit codes and JSON output."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentls.hooks.outcome import HookAnswer, HookResult, interpret


def ran(exit_code: int | None, stdout: Any = "", stderr: str = "", **more: Any) -> HookResult:
    text = stdout if isinstance(stdout, str) else json.dumps(stdout)
    return HookResult(exit_code, text, stderr, **more)


def test_exit_2_blocks_with_stderr_as_the_reason() -> None:
    assert interpret("PreToolUse", ran(2, "ignored", "no pushes\n")) == HookAnswer(
        permission="deny", reason="no pushes", block=True
    )
    assert interpret("PostToolUse", ran(2, stderr="lint failed")) == HookAnswer(
        reason="lint failed", block=True
    )
    assert interpret("Stop", ran(2)).reason == "(the hook gave no reason)"


def test_other_exits_timeouts_and_failed_starts_are_errors() -> None:
    crashed = interpret("PostToolUse", ran(1, stderr="jq: not found\nmore\n"))
    assert crashed == HookAnswer(error="exited with 1: jq: not found\nmore")
    late = interpret("Stop", ran(None, timed_out=True), timeout=1.5)
    assert late.error == "timed out after 1.5 s" and late.outcome == "error"
    missing = interpret("Notification", HookResult(None, failure="did not start: ENOENT"))
    assert missing.error == "did not start: ENOENT"


def test_a_pre_tool_use_hook_that_failed_makes_its_call_ask() -> None:
    for result in (ran(1), ran(None, timed_out=True), HookResult(None, failure="did not start")):
        answer = interpret("PreToolUse", result, timeout=2)
        assert answer.permission == "ask" and answer.error is not None
        assert answer.reason.startswith("the hook ")


@pytest.mark.parametrize(
    ("output", "permission", "reason"),
    [
        ({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                 "permissionDecisionReason": "not main"}}, "deny", "not main"),
        ({"hookSpecificOutput": {"permissionDecision": "allow"}}, "allow", ""),
        ({"hookSpecificOutput": {"permissionDecision": "ask",
                                 "permissionDecisionReason": "check"}}, "ask", "check"),
        ({"decision": "approve", "reason": "old style"}, "allow", "old style"),
        ({"decision": "block", "reason": "old style"}, "deny", "old style"),
        ({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "x"}}},
         "ask", "the hook asked to change the call's input, which agentls does not do"),
        ({"suppressOutput": True}, None, ""),
    ],
)  # fmt: skip
def test_pre_tool_use_json(output: dict[str, Any], permission: str | None, reason: str) -> None:
    answer = interpret("PreToolUse", ran(0, output))
    assert (answer.permission, answer.reason) == (permission, reason)


def test_json_fields_every_event_reads() -> None:
    answer = interpret("PostToolUse", ran(0, {
        "continue": False, "stopReason": "tests fail", "systemMessage": "formatted",
        "decision": "block", "reason": "fix the lint",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ran ruff"},
    }))  # fmt: skip
    assert answer == HookAnswer(
        reason="fix the lint", block=True, context="ran ruff", stop="tests fail",
        message="formatted",
    )  # fmt: skip
    assert interpret("Stop", ran(0, {"continue": False})).stop == "a hook stopped the run"


def test_plain_stdout_is_context_only_where_claude_code_reads_it() -> None:
    assert interpret("UserPromptSubmit", ran(0, "today is Friday\n")).context == "today is Friday"
    assert interpret("SessionStart", ran(0, "branch: main")).context == "branch: main"
    assert interpret("PostToolUse", ran(0, "formatted 1 file")) == HookAnswer()
    assert interpret("PreToolUse", ran(0, "{not json")) == HookAnswer()


def test_an_answer_agentls_does_not_know_is_an_error_and_a_question() -> None:
    said = {"hookSpecificOutput": {"permissionDecision": "yes"}}
    unknown = interpret("PreToolUse", ran(0, said))
    assert unknown.permission == "ask"
    assert unknown.error == "answered permissionDecision 'yes' (allow, deny or ask)"
    odd = interpret("Stop", ran(0, {"decision": "approve"}))
    assert odd.error == "answered decision 'approve' (only \"block\")"
