"""A 300-turn session with bulky tool output stays inside a small window, end to end."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from agentls.contracts.messages import TextBlock
from agentls.contracts.outcomes import TerminalReason
from agentls.permissions.approvers import AutoApprover
from agentls.session.events import ContextSummary, UsageEvent
from agentls.session.reducer import reduce
from tests.unit.helpers import events_of

from .helpers import (
    LongSessionModel,
    assert_pairs_intact,
    dump_tool,
    open_conversation,
    replay_projections,
    true_tokens,
)

TURNS = 300
WINDOW = 8000
GOAL = "Dump every page, one per turn, then say you are done."


async def test_three_hundred_turns_fit_a_small_window_and_replay_from_the_log(
    tmp_path: Path,
) -> None:
    model = LongSessionModel(TURNS, WINDOW)
    settings = {"model": "scripted:long", "contextWindow": WINDOW, "maxTurns": TURNS + 5}
    conv, manager = open_conversation(tmp_path, model, settings, tools=[dump_tool(3000)])
    result = await conv.ask(GOAL, approver=AutoApprover())

    # The model refuses any prompt over its window (by its own, denser count): none was.
    assert result.reason is TerminalReason.COMPLETED, result.detail
    assert result.turns == TURNS + 1
    assert max(true_tokens(i) for i in model.inputs) <= WINDOW
    # Without the context layer the last prompt would have held the whole history.
    assert TURNS * 3000 / 4 > 25 * WINDOW

    agent_calls = [i for i in model.inputs if i.tools]
    summary_calls = [i for i in model.inputs if not i.tools]
    assert len(agent_calls) == TURNS + 1
    assert 3 <= len(summary_calls) == model.summaries
    for request in model.inputs:
        assert_pairs_intact(request.messages)
    for request in summary_calls:  # a separate call: its own prompt, one message, no tools
        assert "running summary of a coding session" in request.system
        assert len(request.messages) == 1
    # The goal is in every projection: verbatim at first, then pinned beside the summary.
    for request in agent_calls:
        assert GOAL in request.messages[0].text

    events = events_of(conv)
    kinds = Counter(e.kind for e in events)
    assert kinds["context_summary"] == model.summaries
    assert all(e.summary is True for e in events if isinstance(e, ContextSummary))
    assert sum(e.purpose == "compaction" for e in events if isinstance(e, UsageEvent)) == (
        model.summaries
    )
    # Only shape changes are logged, never one event per turn per message.
    assert kinds["context_projected"] < TURNS
    # Replay: the log alone rebuilds exactly what the model was shown on every call.
    assert replay_projections(events) == [list(r.messages) for r in agent_calls]

    # The fact history is whole and holds no summary, live and folded from the log alike.
    state = reduce(events)
    assert len(conv.messages) == 1 + 2 * TURNS + 1
    assert state.messages == conv.messages
    assert not any(
        "Summary " in b.text for m in state.messages for b in m.content if isinstance(b, TextBlock)
    )
    assert state.context_summary is not None
    assert state.context_summary.text.startswith(f"Summary {model.summaries}:")
    manager.close()
