"""A PreToolUse hook's answer against the gate, through the runtime with the real tools:
a hook tightens, and its allow weighs as much as an allow rule for that exact call."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentls.contracts.decisions import ApprovalAnswer
from agentls.contracts.observer import NullObserver
from agentls.contracts.tooling import ErrorCode, ToolIntent
from agentls.hooks.config import HookCommand
from agentls.hooks.engine import HookEngine
from agentls.hooks.outcome import HookResult
from agentls.permissions.approvers import AutoApprover, DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet
from agentls.runtime.pipeline import ToolRuntime
from agentls.runtime.registry import ToolRegistry
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace
from tests.unit.runtime.test_runtime import MemoryAudit, Recorder


class Answering:
    """PreToolUse hooks that all give the same result (the scripts are tested elsewhere)."""

    def __init__(self, result: HookResult) -> None:
        self.result = result
        self.asked: list[str] = []

    def has(self, event: str) -> bool:
        return event == "PreToolUse"

    def matching(
        self, event: str, names: Sequence[str], call_id: str | None, turn: int | None
    ) -> Sequence[HookCommand]:
        return (HookCommand(event, "./policy.sh"),)

    async def run(self, hook: HookCommand, payload: dict[str, Any]) -> HookResult:
        self.asked.append(payload["tool_input"].get("command") or payload["tool_input"]["path"])
        return self.result


def says(permission: str) -> HookResult:
    output = {
        "hookSpecificOutput": {
            "permissionDecision": permission,
            "permissionDecisionReason": f"policy says {permission}",
        }
    }
    return HookResult(0, json.dumps(output))  # fmt: skip


def runtime(
    root: Path, hook: HookResult, *, rules: dict[str, Any] | None = None, approver: Any = None
) -> tuple[ToolRuntime, MemoryAudit, Answering]:
    audit, source = MemoryAudit(), Answering(hook)
    policy = PermissionPolicy(RuleSet.from_settings(rules or {}), Mode.DEFAULT, root=root)
    rt = ToolRuntime(
        registry=ToolRegistry(BUILTIN_TOOLS),
        policy=policy,
        approver=approver or DenyAllApprover(),
        context=ToolContext(LocalWorkspace(root)),
        audit=audit,
        observer=NullObserver(),
        settings_hooks=HookEngine(source).bind(audit),
    )
    rt.begin_run("run-test")
    return rt, audit, source


def decision(audit: MemoryAudit) -> dict[str, Any]:
    return next(e for e in audit.events if e["kind"] == "decision")


def command(line: str) -> ToolIntent:
    return ToolIntent("toolu_1", "run_command", {"command": line})


async def test_a_hook_allow_never_passes_a_deny_rule(root: Path) -> None:
    (root / "keep.txt").write_text("kept\n")
    rt, audit, source = runtime(root, says("allow"), rules={"deny": ["run_command(rm *)"]})
    observation = await rt.execute(command("rm keep.txt"), 1)
    assert observation.error is ErrorCode.PERMISSION_DENIED
    assert (root / "keep.txt").exists()
    assert "deny rule run_command(rm *)" in decision(audit)["source"]
    assert source.asked == []  # a denied call runs no hook


async def test_a_hook_allow_weighs_as_an_allow_rule_for_the_call(root: Path) -> None:
    rt, audit, _ = runtime(root, says("allow"))  # commands ask; no one to ask
    observation = await rt.execute(command("echo made > made.txt"), 1)
    assert observation.ok and (root / "made.txt").read_text() == "made\n"
    made = decision(audit)
    assert made["verdict"] == "allow" and made["answer"] is None  # no question was asked
    assert made["source"] == (
        "PreToolUse hook `./policy.sh`: policy says allow "
        "(as an allow rule run_command(echo made) would)"
    )


async def test_a_hook_allow_does_not_resolve_a_line_the_gate_cannot(root: Path) -> None:
    (root / "names").write_text("x\n")
    rules = {"deny": ["run_command(curl *)"]}
    rt, audit, _ = runtime(root, says("allow"), rules=rules, approver=AutoApprover())
    observation = await rt.execute(command("echo $(cat names) > seen.txt"), 1)
    assert observation.error is ErrorCode.PERMISSION_DENIED  # only a person may say yes
    assert not (root / "seen.txt").exists()
    assert "cannot be fully resolved" in decision(audit)["source"]


async def test_a_hook_allow_does_not_pass_a_control_file(root: Path) -> None:
    (root / ".git").mkdir()
    person = Recorder(ApprovalAnswer.DENY)
    rt, _, _ = runtime(root, says("allow"), approver=person)
    write = ToolIntent("toolu_1", "write_file", {"path": ".git/config", "content": "x"})
    observation = await rt.execute(write, 1)
    assert observation.error is ErrorCode.PERMISSION_DENIED
    (request,) = person.requests
    assert request.person_only and "control file" in request.reason


async def test_a_hook_ask_turns_an_allowed_call_into_a_persons_question(root: Path) -> None:
    rules = {"allow": ["run_command(echo *)"]}
    rt, audit, _ = runtime(root, says("ask"), rules=rules, approver=AutoApprover())
    observation = await rt.execute(command("echo hi > hi.txt"), 1)
    assert observation.error is ErrorCode.PERMISSION_DENIED  # --yes does not answer it
    assert not (root / "hi.txt").exists()
    assert decision(audit)["source"].startswith("PreToolUse hook `./policy.sh`: policy says ask")
    person = Recorder(ApprovalAnswer.ALLOW_ONCE)
    rt, _, _ = runtime(root, says("ask"), rules=rules, approver=person)
    assert (await rt.execute(command("echo hi > hi.txt"), 1)).ok
    (request,) = person.requests
    assert request.person_only and (root / "hi.txt").exists()


async def test_a_hook_deny_or_failure_applies_on_top_of_an_allow_rule(root: Path) -> None:
    rules = {"allow": ["run_command(echo *)"]}
    rt, _, _ = runtime(root, HookResult(2, "", "not today\n"), rules=rules)
    observation = await rt.execute(command("echo hi > hi.txt"), 1)
    assert observation.content == (
        "Error (permission_denied): denied by PreToolUse hook `./policy.sh`: not today"
    )
    assert not (root / "hi.txt").exists()
    person = Recorder(ApprovalAnswer.DENY)
    crashed = HookResult(None, timed_out=True)
    rt, _, _ = runtime(root, crashed, rules=rules, approver=person)
    await rt.execute(command("echo hi > hi.txt"), 1)
    (request,) = person.requests
    assert request.person_only and "timed out after 60 s" in request.reason
    assert not (root / "hi.txt").exists()
