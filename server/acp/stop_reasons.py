"""How a run's terminal reason becomes an ACP stop reason (docs/acp.md has this table).

ACP knows only end_turn, max_tokens, max_turn_requests, refusal and cancelled.
The other ends of a run (a model error, a timeout, a stopping deny rule, a
crashing tool, a spent USD budget) end the turn with ``end_turn`` after a
message that says why, so the person is never left with a silent stop.
"""

from __future__ import annotations

from typing import Literal

from agentls.contracts.outcomes import RunResult, TerminalReason, completion_note

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]

_DIRECT: dict[TerminalReason, StopReason] = {
    TerminalReason.COMPLETED: "end_turn",
    TerminalReason.MAX_TURNS: "max_turn_requests",
    TerminalReason.ABORTED: "cancelled",
}


def stop_reason(result: RunResult) -> tuple[StopReason, str | None]:
    """The stop reason, and the message to show first when the mapping loses the cause."""
    if result.reason is TerminalReason.COMPLETED and result.detail:
        # The loop's notes for a model that stopped on its own terms.
        if result.detail == completion_note("refusal"):
            return "refusal", None
        if result.detail == completion_note("max_tokens"):
            return "max_tokens", None
    direct = _DIRECT.get(result.reason)
    if direct is not None:
        return direct, None
    if result.reason is TerminalReason.BUDGET_EXCEEDED:
        if result.budget is not None and result.budget.limit_name == "tokens":
            return "max_tokens", None
        return "end_turn", _explain(result)
    return "end_turn", _explain(result)


def _explain(result: RunResult) -> str:
    detail = result.detail or "no detail"
    return f"\n\n[agentls stopped: {result.reason.value}: {detail}]"
