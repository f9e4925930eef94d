"""A proposed plan through the runtime: the person's answer, never the call, changes the
mode (logged as a mode change, told to the faces, kept for the context); no one to ask
keeps planning and makes the plan the run's answer; update_plan is logged and told."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.observer import NullObserver
from agentls.contracts.outcomes import TerminalReason
from agentls.contracts.plans import (
    NO_PERSON,
    Plan,
    PlanAnswer,
    PlanChoice,
    PlanProposal,
    PlanStep,
    StepStatus,
)
from agentls.contracts.tooling import ErrorCode, ToolIntent
from agentls.permissions.approvers import AutoApprover, DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet
from agentls.runtime.pipeline import ToolRuntime
from agentls.runtime.registry import ToolRegistry
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace
from tests.unit.runtime.test_runtime import MemoryAudit

PLAN = "# Plan\n1. change a.py"


class Person:
    person = True

    def __init__(self, answer: PlanAnswer) -> None:
        self.answer = answer
        self.proposals: list[PlanProposal] = []

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        raise AssertionError("a plan is not a permission question")

    async def review_plan(self, proposal: PlanProposal) -> PlanAnswer:
        self.proposals.append(proposal)
        return self.answer


class Watcher(NullObserver):
    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def plan_updated(self, turn: int, plan: Plan) -> None:
        self.seen.append(("plan", plan))

    def plan_proposed(self, turn: int, proposal: PlanProposal) -> None:
        self.seen.append(("proposed", proposal.plan))

    def mode_changed(self, turn: int, mode: str) -> None:
        self.seen.append(("mode", mode))


def runtime(
    tmp_path: Path, approver: Any, mode: Mode = Mode.PLAN
) -> tuple[ToolRuntime, MemoryAudit, Watcher, list[str]]:
    audit, watcher, agreed = MemoryAudit(), Watcher(), []
    rt = ToolRuntime(
        registry=ToolRegistry(BUILTIN_TOOLS),
        policy=PermissionPolicy(RuleSet(), mode),
        approver=approver,
        context=ToolContext(LocalWorkspace(tmp_path)),
        audit=audit,
        observer=watcher,
        plan_agreed=agreed.append,
    )
    rt.begin_run("run-test")
    return rt, audit, watcher, agreed


def propose(plan: str = PLAN) -> ToolIntent:
    return ToolIntent("c1", "propose_plan", {"plan": plan})


async def test_a_switch_changes_the_mode_logs_it_and_keeps_the_plan(tmp_path: Path) -> None:
    person = Person(PlanAnswer(PlanChoice.ACCEPT_EDITS))
    rt, audit, watcher, agreed = runtime(tmp_path, person)
    observation = await rt.execute(propose("  " + PLAN + "\n"), 3)
    assert observation.ok and "switched to accept-edits mode" in observation.content
    assert rt.policy.mode is Mode.ACCEPT_EDITS and rt.stop is None
    assert [p.plan for p in person.proposals] == [PLAN]
    assert audit.kinds("c1") == ["tool_intent", "decision", "plan_reviewed", "observation"]
    reviewed = next(e for e in audit.events if e["kind"] == "plan_reviewed")
    assert (reviewed["choice"], reviewed["person"]) == ("accept-edits", True)
    assert reviewed["plan"] == PLAN
    changed = next(e for e in audit.events if e["kind"] == "mode_changed")
    assert (changed["mode"], changed["run"], changed["turn"]) == ("accept-edits", "run-test", 3)
    assert watcher.seen == [("proposed", PLAN), ("mode", "accept-edits")]
    assert agreed == [PLAN]


async def test_keep_planning_tells_the_model_the_note_and_stays(tmp_path: Path) -> None:
    person = Person(PlanAnswer(PlanChoice.KEEP_PLANNING, "split the second step"))
    rt, audit, _, agreed = runtime(tmp_path, person)
    observation = await rt.execute(propose(), 1)
    assert "keep planning" in observation.content
    assert "Their note: split the second step" in observation.content
    assert rt.policy.mode is Mode.PLAN and rt.stop is None and agreed == []
    assert not [e for e in audit.events if e["kind"] == "mode_changed"]


async def test_no_one_to_ask_keeps_planning_and_ends_the_run_with_the_plan(
    tmp_path: Path,
) -> None:
    for approver in (AutoApprover(), DenyAllApprover(), Person(NO_PERSON)):
        rt, audit, _, agreed = runtime(tmp_path, approver)
        observation = await rt.execute(propose(), 1)
        assert observation.ok and "No one is here to approve the plan" in observation.content
        assert rt.policy.mode is Mode.PLAN and agreed == []
        assert rt.stop is not None and rt.stop.reason is TerminalReason.COMPLETED
        assert rt.stop.text == PLAN
        reviewed = next(e for e in audit.events if e["kind"] == "plan_reviewed")
        assert (reviewed["choice"], reviewed["person"]) == ("keep-planning", False)


async def test_a_switch_no_person_gave_changes_nothing(tmp_path: Path) -> None:
    # Only a person leaves plan mode: an answer that says otherwise is not a switch.
    rt, _, _, agreed = runtime(tmp_path, Person(PlanAnswer(PlanChoice.DEFAULT, person=False)))
    await rt.execute(propose(), 1)
    assert rt.policy.mode is Mode.PLAN and agreed == []


async def test_propose_plan_is_shown_and_allowed_only_in_plan_mode(tmp_path: Path) -> None:
    registry = ToolRegistry(BUILTIN_TOOLS)
    assert "propose_plan" in registry.spec_names(Mode.PLAN)
    assert "update_plan" in registry.spec_names(Mode.PLAN)
    for mode in (Mode.DEFAULT, Mode.ACCEPT_EDITS, Mode.BYPASS):
        assert "propose_plan" not in registry.spec_names(mode)
        assert "update_plan" in registry.spec_names(mode)
        person = Person(PlanAnswer(PlanChoice.DEFAULT))
        rt, _, _, _ = runtime(tmp_path, person, mode)
        observation = await rt.execute(propose(), 1)
        assert observation.error is ErrorCode.PERMISSION_DENIED
        assert f"not available in {mode.value} mode" in observation.content
        assert person.proposals == [] and rt.policy.mode is mode


async def test_a_deny_rule_denies_a_proposal_without_asking(tmp_path: Path) -> None:
    person = Person(PlanAnswer(PlanChoice.DEFAULT))
    audit, agreed = MemoryAudit(), []
    rt = ToolRuntime(
        registry=ToolRegistry(BUILTIN_TOOLS),
        policy=PermissionPolicy(RuleSet.from_settings({"deny": ["propose_plan"]}), Mode.PLAN),
        approver=person, context=ToolContext(LocalWorkspace(tmp_path)), audit=audit,
        observer=NullObserver(), plan_agreed=agreed.append,
    )  # fmt: skip
    rt.begin_run("run-test")
    observation = await rt.execute(propose(), 1)
    assert observation.error is ErrorCode.PERMISSION_DENIED
    assert person.proposals == [] and rt.policy.mode is Mode.PLAN


async def test_update_plan_is_logged_and_told_whole(tmp_path: Path) -> None:
    rt, audit, watcher, _ = runtime(tmp_path, DenyAllApprover(), Mode.DEFAULT)
    steps = [
        {"step": "  read   a.py ", "status": "completed"},
        {"step": "fix", "status": "pending"},
    ]
    observation = await rt.execute(
        ToolIntent("c1", "update_plan", {"plan": steps, "explanation": "why"}), 2
    )
    assert observation.content == "Plan updated: 1 of 2 steps completed."
    expected = Plan(
        (PlanStep("read a.py", StepStatus.COMPLETED), PlanStep("fix", StepStatus.PENDING)), "why"
    )
    assert watcher.seen == [("plan", expected)]
    logged = next(e for e in audit.events if e["kind"] == "plan_updated")
    assert logged["plan"] == [
        {"step": "read a.py", "status": "completed"},
        {"step": "fix", "status": "pending"},
    ]
    assert (logged["explanation"], logged["turn"], logged["callId"]) == ("why", 2, "c1")


async def test_update_plan_refuses_two_steps_in_progress(tmp_path: Path) -> None:
    rt, audit, watcher, _ = runtime(tmp_path, DenyAllApprover(), Mode.DEFAULT)
    steps = [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]
    observation = await rt.execute(ToolIntent("c1", "update_plan", {"plan": steps}), 1)
    assert observation.error is ErrorCode.INVALID_INPUT and observation.retryable
    assert "2 steps are in_progress" in observation.content
    assert watcher.seen == [] and not [e for e in audit.events if e["kind"] == "plan_updated"]
