"""Checks on a session log and the history rebuilt from it, shared by the reliability tests."""

from __future__ import annotations

import itertools
from pathlib import Path

from agentls.contracts.messages import Message, TextBlock, ToolResultBlock
from agentls.session.events import ModelOutput, SessionEvent
from agentls.session.reader import read_events
from agentls.session.reducer import reduce


def complete_lines(path: Path) -> bytes:
    """The file up to and including its last newline: the events written in full."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return b""
    return data[: data.rfind(b"\n") + 1]


def check_log(path: Path) -> list[SessionEvent]:
    """The events, read as agentls reads them; their seqs run 1, 2, 3... without a gap."""
    events = read_events(path)
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(events) + 1)), f"seqs out of order in {path}: {seqs}"
    return events


def check_history(messages: list[Message]) -> None:
    """No two model turns in a row, and every tool_use is answered in the next message.

    (Two user messages in a row are fine: a prompt after a run that ended on
    tool results. The APIs take them as one turn.)
    """
    for before, after in itertools.pairwise(messages):
        assert not before.role == after.role == "assistant", "two model turns in a row"
    for index, message in enumerate(messages):
        uses = [u.id for u in message.tool_uses]
        if not uses:
            continue
        assert index + 1 < len(messages), "the history ends with unanswered tool calls"
        results = [b.tool_use_id for b in messages[index + 1].content
                   if isinstance(b, ToolResultBlock)]  # fmt: skip
        assert sorted(results) == sorted(uses), (uses, results)


def assistant_texts(events: list[SessionEvent]) -> list[str]:
    """The text of every model_output event, in order."""
    return [event.message.text for event in events if isinstance(event, ModelOutput)]


def history_texts(path: Path) -> list[str]:
    """The assistant texts of the history agentls rebuilds from the log."""
    messages = reduce(read_events(path)).messages
    check_history(messages)
    return [
        "".join(b.text for b in m.content if isinstance(b, TextBlock))
        for m in messages
        if m.role == "assistant"
    ]
