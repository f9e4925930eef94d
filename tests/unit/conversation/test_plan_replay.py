"""A session whose plan the person approved replays exactly: the recorded answer switches
the mode again at the same call, so the edit that followed is decided as it was."""

from __future__ import annotations

from pathlib import Path

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.outcomes import TerminalReason
from agentls.contracts.plans import PlanAnswer, PlanChoice, PlanProposal
from agentls.conversation.run_replay import replay_session
from agentls.permissions.modes import Mode
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from agentls.session.transcript import render_transcript
from tests.unit.helpers import call, conversation


class Person:
    person = True

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer.DENY

    async def review_plan(self, proposal: PlanProposal) -> PlanAnswer:
        return PlanAnswer(PlanChoice.ACCEPT_EDITS)


async def test_an_approved_plan_switches_edits_and_replays_the_same(tmp_path: Path) -> None:
    conv, _, manager = conversation(
        tmp_path,
        [
            {"expect": {"toolsExclude": ["write_file"]},
             "toolCalls": [call("propose_plan", "pp", plan="1. write a.py")]},
            {"expect": {"toolsInclude": ["write_file"]},
             "toolCalls": [call("write_file", "w1", path="a.py", content="A = 1\n")]},
            {"text": "Written."},
        ],
        settings={"mode": "plan"},
    )  # fmt: skip
    result = await conv.ask("plan and write a.py", approver=Person())
    assert result.reason is TerminalReason.COMPLETED and result.text == "Written."
    assert (conv.workspace.root / "a.py").read_text() == "A = 1\n"  # accept-edits: no review
    assert conv.mode is Mode.ACCEPT_EDITS
    conv.log.sync()
    events = read_events(conv.log.path)
    state = reduce(events)
    assert state.mode == "accept-edits" and state.agreed_plan == "1. write a.py"
    assert conv.projector.plan == "1. write a.py"  # pinned through compactions
    report = await replay_session(events)
    assert report.same and report.calls == 2, report.describe()
    shown = render_transcript(events)
    assert "◆ Plan proposed — the person switched to accept-edits mode:\n> 1. write a.py" in shown
    manager.close()
