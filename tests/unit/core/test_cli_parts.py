"""The terminal approver and the summary line, without a subprocess."""

from __future__ import annotations

import io

from agentls.cli.approve import TerminalApprover
from agentls.cli.render import summary_line
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason
from agentls.contracts.tooling import Risk
from agentls.contracts.usage import Usage

REQUEST = ApprovalRequest(
    "c1", "run_command", Risk.EXECUTE, "run_command: ls", "ls", "run_command(ls)"
)


async def test_answers_are_read_until_one_is_understood() -> None:
    out = io.StringIO()
    approver = TerminalApprover(io.StringIO("maybe\nA\n"), out)
    assert await approver.approve(REQUEST) is ApprovalAnswer.ALLOW_ALWAYS
    assert "please answer y, a, w or n" in out.getvalue()
    assert "run_command(ls)" in out.getvalue()


async def test_end_of_input_denies() -> None:
    approver = TerminalApprover(io.StringIO(""), io.StringIO())
    assert await approver.approve(REQUEST) is ApprovalAnswer.DENY


def test_summary_line_names_the_limit() -> None:
    result = RunResult(
        TerminalReason.BUDGET_EXCEEDED,
        "",
        Usage(1200, 300),
        None,
        4,
        "the tokens budget of 1000 was exceeded (1500 used, 500 over)",
        BudgetOverrun("tokens", 1000, 1500),
    )
    line = summary_line(result)
    assert line.startswith("[budget_exceeded · 4 turns · 1,200 in / 300 out tokens · cost unknown]")
    assert "500 over" in line


def test_summary_line_of_a_scripted_run_has_no_price() -> None:
    result = RunResult(TerminalReason.COMPLETED, "Done.", Usage(1000, 132), 0.005, 1, "", None)
    assert summary_line(result) == "[completed · 1 turn · 1,000 in / 132 out tokens · $0.0050]"
    assert (
        summary_line(result, show_cost=False) == "[completed · 1 turn · 1,000 in / 132 out tokens]"
    )
