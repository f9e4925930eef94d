"""The log's own encoders write exactly what pydantic writes, or leave it to pydantic."""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.decisions import ApprovalAnswer, Verdict
from agentls.contracts.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentls.contracts.tooling import ErrorCode
from agentls.contracts.usage import Usage
from agentls.session import events as ev
from agentls.session.log import SessionLog
from agentls.session.reader import read_events

ODD_TEXT = 'quote " back \\ nl \n tab \t nul \x00 del \x7f é 世 \u2028 😀 </script>'


class Colour(enum.Enum):
    RED = "red"


@dataclass
class Point:
    x: int


ODD_VALUES: list[Any] = [
    None, True, 0, -1, 2**63 - 1, 2**64, 1.5, 0.1 + 0.2, 1e300, 1e-7, float("nan"),
    float("inf"), ODD_TEXT, [1, "a", None], (1, 2), {"nested": {"k": [1.0]}}, {1, 2},
    frozenset({3}), b"bytes", Path("a/b"), Point(1), Colour.RED, ErrorCode.TIMEOUT,
    datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC), datetime.date(2026, 1, 2),
    {1: "int key"}, object(),
]  # fmt: skip


def message(text: str) -> Message:
    return Message("assistant", (
        ThinkingBlock("hm", "sig"), ThinkingBlock("", "", "redacted"), TextBlock(text),
        ToolUseBlock("c1", "read_file", {"path": text, "n": 1}),
        ToolResultBlock("c1", text, True),
    ))  # fmt: skip


def turn_events(value: Any) -> list[ev.Event]:
    return [
        ev.ModelRequest(run="r", turn=1, model="m", messages=3, tools=["a", "b"],
                        estimated_tokens=None),
        ev.ModelOutput(run="r", turn=1, message=message(ODD_TEXT), stop_reason="tool_use"),
        ev.UsageEvent(run="r", turn=1, usage=Usage(1, 2, 3, 4), cost_usd=0,
                      total_cost_usd=0.25, purpose="compaction"),
        ev.UsageEvent(usage=Usage()),
        ev.ToolIntent(run="r", turn=1, call_id="c", name="n", input={"v": value}),
        ev.Decision(call_id="c", verdict=Verdict.ALLOW, source="rule",
                    answer=ApprovalAnswer.ALLOW_ALWAYS),
        ev.ObservationEvent(call_id="c", name="n", ok=False, content=ODD_TEXT,
                            error=ErrorCode.NOT_FOUND, meta={"v": value, "x": [value]}),
        ev.ToolResults(run="r", turn=2, message=Message("user", (ToolResultBlock("c", "x"),))),
        ev.RunStarted(prompt=ODD_TEXT, settings={"v": value}, mode=None),
        ev.ContextProjected(from_message=0, elided_before=1, bulky_chars=2, elided=3,
                            estimated_tokens=4, compact_at=5, window=6),
    ]  # fmt: skip


@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_a_line_is_what_pydantic_writes(value: Any) -> None:
    for event in turn_events(value):
        event.seq, event.ts = 7, 1764563783.123456
        expected = ev.SERIALIZERS[type(event)].to_json(event, fallback=str) + b"\n"
        assert ev.to_json_line(event) == expected, type(event).__name__


def test_every_kind_a_turn_writes_has_its_own_encoder() -> None:
    for event in turn_events(None):
        assert type(event) in ev.ENCODERS


def test_a_lone_surrogate_still_makes_a_readable_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(ev.ObservationEvent(call_id="c", name="n", ok=True, content="a\udc80b"))
        log.append(ev.ModeChanged(mode="plan"))
    events = read_events(path)
    assert [e.kind for e in events] == ["observation", "mode_changed"]
    assert isinstance(events[0], ev.ObservationEvent) and events[0].content.startswith("a")
