"""Prompt-cache breakpoints in the requests the real SDK sends to a fake Anthropic API."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from agentls.contracts.outcomes import TerminalReason
from agentls.contracts.usage import Usage
from agentls.permissions.approvers import AutoApprover
from agentls.pricing import price_for
from agentls.providers.anthropic import AnthropicProvider, mark_cache_breakpoints
from agentls.session.events import RunFinished, RunStarted, SessionEvent
from agentls.session.records import ResultUsage, RunResultRecord
from agentls.session.transcript import render_transcript
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.unit.helpers import Gates, make_tools

from .helpers import open_conversation, without_breakpoints

EPHEMERAL = {"type": "ephemeral"}


def breakpoints(body: dict[str, Any]) -> list[tuple[int, int]]:
    """(message, block) positions that carry a cache_control."""
    return [
        (m, b)
        for m, message in enumerate(body["messages"])
        for b, block in enumerate(message["content"])
        if "cache_control" in block
    ]


async def test_breakpoints_sit_on_the_stable_prefix_of_every_request(
    tmp_path: Path, fake: FakeAnthropic
) -> None:
    fake.add(
        turn("One.", tool_calls=[("toolu_1", "echo", {"text": "a"})]),
        turn("Two.", tool_calls=[("toolu_2", "echo", {"text": "b"}),
                                 ("toolu_3", "echo", {"text": "c"})]),
        turn("Done."),
        turn("Again."),
    )  # fmt: skip
    provider = AnthropicProvider("claude-test", api_key="k", base_url=fake.base_url)
    conv, manager = open_conversation(
        tmp_path, provider, {"model": "anthropic:claude-test"}, tools=make_tools(Gates())
    )
    assert (await conv.ask("Echo things.", approver=AutoApprover())).reason is (
        TerminalReason.COMPLETED
    )
    await conv.ask("And once more.")
    bodies = [r.body for r in fake.requests]
    assert len(bodies) == 4

    for body in bodies:
        # At most four, the API's limit; the system prompt's covers the tools before it.
        assert json.dumps(body).count('"cache_control"') <= 4
        assert body["system"][-1]["cache_control"] == EPHEMERAL
        assert "cache_control" not in json.dumps(body["tools"])
        last = len(body["messages"]) - 1
        assert (last, len(body["messages"][last]["content"]) - 1) in breakpoints(body)
        assert (0, 0) in breakpoints(body)  # the head: first prompt or summary
    for before, after in itertools.pairwise(bodies):
        # The next request repeats this one's messages unchanged, and keeps a breakpoint
        # where this one ended, so its whole prefix is read from the cache.
        end = len(before["messages"]) - 1
        assert without_breakpoints(after["messages"][: end + 1]) == without_breakpoints(
            before["messages"]
        )
        assert (end, len(before["messages"][end]["content"]) - 1) in breakpoints(after)
    manager.close()


def test_thinking_blocks_are_never_marked() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me see."},
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
        ]},
    ]  # fmt: skip
    mark_cache_breakpoints(messages)
    assert messages[1]["content"][0]["cache_control"] == EPHEMERAL
    assert "cache_control" not in messages[1]["content"][1]
    assert messages[0]["content"][0]["cache_control"] == EPHEMERAL


def test_a_breakpoint_ends_the_prefix_the_next_elision_step_keeps() -> None:
    roles = ["user", "assistant", "user", "assistant", "user"]
    messages = [
        {"role": r, "content": [{"type": "text", "text": str(i)}]} for i, r in enumerate(roles)
    ]
    mark_cache_breakpoints(messages, stable=2)
    assert [i for i, m in enumerate(messages) if "cache_control" in m["content"][0]] == [1, 2, 4]


def test_the_transcript_shows_cache_tokens() -> None:
    usage = ResultUsage(input_tokens=120, output_tokens=30, cache_read_tokens=9000,
                        cache_write_tokens=400, cost_usd=0.01)  # fmt: skip
    result = RunResultRecord(terminal_reason="completed", turns=2, usage=usage)
    events: list[SessionEvent] = [
        RunStarted(run="r", prompt="hi"),
        RunFinished(run="r", turn=2, result=result),
    ]
    assert "(9,000 read from / 400 written to the prompt cache)" in render_transcript(events)


def test_cache_reads_and_writes_are_priced() -> None:
    price = price_for("anthropic:claude-sonnet-4-5")
    assert price is not None
    cached = price.cost(Usage(input_tokens=100, cache_read_tokens=100_000, output_tokens=10))
    uncached = price.cost(Usage(input_tokens=100_100, output_tokens=10))
    assert cached < uncached / 5
    assert price.cost(Usage(cache_write_tokens=1_000_000)) == price.cache_write
