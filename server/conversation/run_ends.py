"""How runs that did not end in their loop are written: one a crash left open (closed
when its session is next taken), one cancelled before its first turn."""

from __future__ import annotations

from agentls.contracts.messages import Message, ToolResultBlock
from agentls.contracts.observer import RunObserver, notify
from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.tooling import ErrorCode
from agentls.contracts.usage import Usage
from agentls.pricing import price_for
from agentls.session import events as ev
from agentls.session.log import SessionLog
from agentls.session.records import RunResultRecord
from agentls.session.state import SessionState


def close_interrupted_run(log: SessionLog, state: SessionState, messages: list[Message]) -> None:
    """A run that crashed gets its terminal event, and its dangling calls a result."""
    dangling = state.dangling_tool_uses()
    if dangling:
        content = f"Error ({ErrorCode.CANCELLED.value}): not run: the session was interrupted"
        blocks = tuple(ToolResultBlock(use.id, content, True) for use in dangling)
        repair = Message("user", blocks)
        messages.append(repair)
        log.append(ev.ToolResults(message=repair))
    open_run = state.open_run
    if open_run is not None:
        log.append(ev.RunClosed(
            run=open_run.run_id, reason="aborted",
            detail="the process ended before the run finished",
        ))  # fmt: skip


def aborted_early(log: SessionLog, observer: RunObserver, run_id: str, model_id: str) -> RunResult:
    """A run cancelled before its loop started (before its first step, or while its MCP
    servers or a checkpoint recovery ran): nothing ran."""
    cost = 0.0 if price_for(model_id) is not None else None
    detail = "the run was cancelled before its first turn"
    result = RunResult(
        reason=TerminalReason.ABORTED, text="", usage=Usage(), cost_usd=cost, turns=0, detail=detail
    )
    log.append(ev.RunFinished(run=run_id, turn=0, result=RunResultRecord.of(result)))
    notify(observer.run_finished, result)
    return result
