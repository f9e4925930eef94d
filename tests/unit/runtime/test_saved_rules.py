""" "Always allow in this workspace" through a run: the rule lands in the workspace's
settings file, approved; when it cannot be saved the person's yes still stands, the rule
holds for the session, and the log says why it was not saved."""

from __future__ import annotations

import json
from pathlib import Path

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.session import events as ev
from agentls.session.reader import read_events
from tests.unit.helpers import call, conversation


class AlwaysInThisWorkspace:
    person = True
    reason = ""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request.call_id)
        return ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE


TWO_WRITES = [  # the same command twice: the rule the first answer makes covers the second
    {"toolCalls": [call("run_command", "c1", command="echo ran >> ran.txt")]},
    {"toolCalls": [call("run_command", "c2", command="echo ran >> ran.txt")]},
    {"text": "done"},
]


async def run_twice_allowed(tmp_path: Path) -> tuple[AlwaysInThisWorkspace, list[ev.Decision]]:
    conv, _, manager = conversation(tmp_path, TWO_WRITES)
    approver = AlwaysInThisWorkspace()
    result = await (await conv.start("go", approver=approver)).result()
    assert result.reason.value == "completed", result
    manager.close()
    events = read_events(conv.log.path)
    assert isinstance(events[-1], ev.RunFinished)
    return approver, [e for e in events if isinstance(e, ev.Decision)]


async def test_the_rule_is_saved_and_covers_the_next_call(tmp_path: Path) -> None:
    approver, decisions = await run_twice_allowed(tmp_path)
    ws = tmp_path / "ws"
    assert (ws / "ran.txt").read_text() == "ran\nran\n"
    assert approver.asked == ["c1"]  # the second call is covered by the saved rule
    saved = json.loads((ws / ".agentls" / "settings.json").read_text())
    assert saved["permissions"]["allow"] == ["run_command(echo ran)"]
    assert "saved in" in decisions[0].source


async def test_a_rule_that_cannot_be_saved_still_allows_and_holds_for_the_session(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / ".agentls").mkdir(parents=True)
    unapproved = '{"maxTurns": 3}\n'
    (ws / ".agentls" / "settings.json").write_text(unapproved)
    approver, decisions = await run_twice_allowed(tmp_path)
    assert (ws / "ran.txt").read_text() == "ran\nran\n"
    assert approver.asked == ["c1"]  # a session rule covers the second call
    assert (ws / ".agentls" / "settings.json").read_text() == unapproved
    assert "not saved" in decisions[0].source and "not approved" in decisions[0].source
