"""A person's "always deny" is kept by the runtime as "always allow" is: a session deny rule."""

from __future__ import annotations

from pathlib import Path

from agentls.contracts.decisions import ApprovalAnswer
from agentls.contracts.tooling import ErrorCode, ToolIntent
from agentls.permissions.policy import PermissionPolicy

from ..core.helpers import Gates, make_tools
from ..core.test_runtime import Recorder, runtime


async def test_deny_always_denies_the_call_and_the_same_calls_after_it(tmp_path: Path) -> None:
    gates = Gates()
    approver = Recorder(ApprovalAnswer.DENY_ALWAYS)
    rt, audit = runtime(tmp_path, make_tools(gates), approver=approver)
    first = await rt.execute(ToolIntent("c1", "shout", {"text": "git push"}), 1)
    second = await rt.execute(ToolIntent("c2", "shout", {"text": "git push"}), 2)
    await rt.execute(ToolIntent("c3", "shout", {"text": "git status"}), 2)
    assert first.error is ErrorCode.PERMISSION_DENIED
    assert second.error is ErrorCode.PERMISSION_DENIED
    assert [r.call_id for r in approver.requests] == ["c1", "c3"]  # the rule answered c2
    assert gates.log == []  # nothing ran: the approver denied "git status" always too
    kept = [e for e in audit.events if e["kind"] == "session_rules"]
    assert [(e["allow"], e["deny"]) for e in kept] == [
        ([], ["shout(git push)"]),
        ([], ["shout(git status)"]),
    ]
    decisions = {e["callId"]: e for e in audit.events if e["kind"] == "decision"}
    assert decisions["c1"]["answer"] == "deny_always"
    assert decisions["c2"]["source"].startswith("deny rule shout(git push)")


async def test_an_always_no_rule_covers_counts_once(tmp_path: Path) -> None:
    policy = PermissionPolicy()
    assert not policy.take_answer(ApprovalAnswer.DENY_ALWAYS, [])
    assert not policy.take_answer(ApprovalAnswer.ALLOW_ALWAYS, [])
    assert policy.session_deny == [] and policy.session_allow == []
    assert ApprovalAnswer.DENY_ALWAYS.covering([]) is ApprovalAnswer.DENY
    assert ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE.covering([]) is ApprovalAnswer.ALLOW_ONCE
