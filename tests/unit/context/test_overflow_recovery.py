""" "Prompt is too long" from the real SDK and a fake Anthropic API: compact once, retry once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.outcomes import TerminalReason
from agentls.conversation.one_session import Conversation
from agentls.permissions.approvers import AutoApprover
from agentls.providers.anthropic import AnthropicProvider
from agentls.session.events import ContextSummary
from tests.fakes.anthropic_server import FakeAnthropic, Reply, status, turn
from tests.unit.helpers import Gates, events_of, make_tools

from .helpers import open_conversation, without_breakpoints

TOO_LONG = "prompt is too long: 210000 tokens > 200000 maximum"
OVERFLOWS = [
    pytest.param(status(400, message=TOO_LONG), id="400-prompt-is-too-long"),
    pytest.param(status(413, message="Request exceeds the maximum size"), id="413"),
]


def anthropic_conversation(tmp_path: Path, fake: FakeAnthropic, **settings: Any) -> Conversation:
    provider = AnthropicProvider(
        "claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0
    )
    conv, _ = open_conversation(
        tmp_path, provider, {"model": "anthropic:claude-test", "contextWindow": 200_000,
                             **settings},
        tools=make_tools(Gates()),
    )  # fmt: skip
    return conv


def two_echo_turns() -> list[Reply]:
    return [
        turn("First.", tool_calls=[("toolu_1", "echo", {"text": "a"})]),
        turn("Second.", tool_calls=[("toolu_2", "echo", {"text": "b"})]),
    ]


def texts(body: dict[str, Any]) -> str:
    return " ".join(str(block.get("text", "")) for m in body["messages"] for block in m["content"])


@pytest.mark.parametrize("overflow", OVERFLOWS)
async def test_compacts_once_and_retries_after_prompt_too_long(
    tmp_path: Path, fake: FakeAnthropic, overflow: Reply
) -> None:
    fake.add(*two_echo_turns(), overflow, turn("Summary: echoed a, then b."), turn("Done."))
    conv = anthropic_conversation(tmp_path, fake)
    result = await conv.ask("Echo a, then b.", approver=AutoApprover())

    assert result.reason is TerminalReason.COMPLETED, result.detail
    assert result.text == "Done."
    bodies = [r.body for r in fake.requests]
    assert len(bodies) == 5
    refused, summary_call, retry = bodies[2], bodies[3], bodies[4]
    assert len(refused["messages"]) == 5
    # The summary call: the summariser's prompt, one message, no tools.
    assert "running summary of a coding session" in summary_call["system"][0]["text"]
    assert "tools" not in summary_call and len(summary_call["messages"]) == 1
    assert "Echo a, then b." in texts(summary_call)
    # The retry: the summary head (with the goal pinned), then the latest turn verbatim.
    assert len(retry["messages"]) == 3
    head = retry["messages"][0]["content"][0]["text"]
    assert "Summary: echoed a, then b." in head and "Echo a, then b." in head
    assert without_breakpoints(retry["messages"][1:]) == without_breakpoints(
        refused["messages"][3:]
    )

    events = events_of(conv)
    [summary] = [e for e in events if isinstance(e, ContextSummary)]
    assert summary.reason == "prompt_too_long" and summary.up_to_message == 3
    if "tokens >" in str(overflow.options.get("message")):
        # The API said how long it was: estimates are scaled up to match from now on.
        assert conv.projector.calibration.factor > 2


@pytest.mark.parametrize("overflow", OVERFLOWS)
async def test_too_long_again_after_compacting_ends_as_model_error_with_advice(
    tmp_path: Path, fake: FakeAnthropic, overflow: Reply
) -> None:
    fake.add(*two_echo_turns(), overflow, turn("Summary."), overflow)
    conv = anthropic_conversation(tmp_path, fake)
    result = await conv.ask("Echo a, then b.", approver=AutoApprover())

    assert result.reason is TerminalReason.MODEL_ERROR
    assert result.exit_code == 8
    assert "too long" in result.detail and "even after compacting it" in result.detail
    assert "compactionThreshold" in result.detail and "start a new session" in result.detail
    assert len(fake.requests) == 5  # one compaction, one retry, nothing more
    assert fake.pending == 0


async def test_with_compaction_off_the_advice_says_so_and_nothing_is_retried(
    tmp_path: Path, fake: FakeAnthropic
) -> None:
    fake.add(status(400, message=TOO_LONG))
    conv = anthropic_conversation(tmp_path, fake, compaction=False)
    result = await conv.ask("Hello")

    assert result.reason is TerminalReason.MODEL_ERROR
    assert "compaction is off" in result.detail and "start a new session" in result.detail
    assert len(fake.requests) == 1


async def test_nothing_to_compact_still_retries_once_then_advises(
    tmp_path: Path, fake: FakeAnthropic
) -> None:
    fake.add(status(400, message=TOO_LONG), status(400, message=TOO_LONG))
    conv = anthropic_conversation(tmp_path, fake)
    result = await conv.ask("Hello")

    assert result.reason is TerminalReason.MODEL_ERROR
    assert "nothing left to compact" in result.detail
    assert len(fake.requests) == 2
    assert not [e for e in events_of(conv) if isinstance(e, ContextSummary)]
