"""The documented table from terminal reasons to ACP stop reasons."""

from __future__ import annotations

import pytest

from agentls.acp.stop_reasons import stop_reason
from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason, completion_note
from agentls.contracts.usage import Usage


def result(
    reason: TerminalReason, detail: str = "", budget: BudgetOverrun | None = None
) -> RunResult:
    return RunResult(reason, "", Usage(), 0.0, 1, detail, budget)


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (result(TerminalReason.COMPLETED), "end_turn"),
        (result(TerminalReason.MAX_TURNS, "8 turns"), "max_turn_requests"),
        (result(TerminalReason.ABORTED), "cancelled"),
        (
            result(TerminalReason.BUDGET_EXCEEDED, budget=BudgetOverrun("tokens", 10, 12)),
            "max_tokens",
        ),
        (result(TerminalReason.COMPLETED, completion_note("refusal")), "refusal"),
        (result(TerminalReason.COMPLETED, completion_note("max_tokens")), "max_tokens"),
    ],
)
def test_direct_mappings_need_no_message(run: RunResult, expected: str) -> None:
    assert stop_reason(run) == (expected, None)


@pytest.mark.parametrize(
    "run",
    [
        result(TerminalReason.MODEL_ERROR, "overloaded"),
        result(TerminalReason.TIMEOUT, "600 s"),
        result(TerminalReason.PERMISSION_DENIED, "deny rule run_command(rm *) stops the run"),
        result(TerminalReason.FATAL_TOOL_ERROR, "run_command crashed"),
        result(TerminalReason.BUDGET_EXCEEDED, budget=BudgetOverrun("cost_usd", 1, 2)),
    ],
)
def test_other_ends_end_the_turn_with_a_message_that_names_them(run: RunResult) -> None:
    reason, message = stop_reason(run)
    assert reason == "end_turn"
    assert message is not None and run.reason.value in message
