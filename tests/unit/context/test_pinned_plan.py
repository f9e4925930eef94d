"""The model's checklist is pinned through compactions from the history itself: the latest
`update_plan` that ran replaces the earlier one; a refused or invalid call pins nothing."""

from __future__ import annotations

from typing import Any

from agentls.context.pinned import PinnedFacts
from agentls.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock


def plan_call(call_id: str, *steps: tuple[str, str]) -> Message:
    plan: list[dict[str, Any]] = [{"step": s, "status": status} for s, status in steps]
    return Message("assistant", (ToolUseBlock(call_id, "update_plan", {"plan": plan}),))


def result(call_id: str, *, error: bool = False) -> Message:
    text = "Error (invalid_input): nope" if error else "Plan updated."
    return Message("user", (ToolResultBlock(call_id, text, error),))


def pins(messages: list[Message]) -> PinnedFacts:
    facts = PinnedFacts()
    for index, message in enumerate(messages):
        before = messages[index - 1] if index else None
        uses = {u.id: u for u in before.tool_uses} if before is not None else {}
        facts.add(index, message, uses)
    return facts


def test_the_latest_checklist_that_ran_is_pinned_whole() -> None:
    history = [
        Message("user", (TextBlock("fix the parser"),)),
        plan_call("c1", ("read", "in_progress"), ("fix", "pending")),
        result("c1"),
        plan_call("c2", ("read", "completed"), ("fix", "in_progress")),
        result("c2"),
        plan_call("c3", ("read", "completed"), ("fix", "in_progress"), ("x", "in_progress")),
        result("c3", error=True),  # refused by the tool: not the plan
    ]
    text = pins(history).render(len(history), None)
    assert "- The task's checklist (update_plan; a later call replaces it):" in text
    assert "  [x] read\n  [>] fix" in text
    assert text.count("[ ] fix") == 0 and "[>] x" not in text


def test_no_checklist_no_line_and_the_agreed_plan_keeps_its_own() -> None:
    history = [Message("user", (TextBlock("plan it"),))]
    text = pins(history).render(1, "# Plan\n1. do it")
    assert "checklist" not in text
    assert "- The plan agreed in plan mode:\n# Plan\n1. do it" in text
