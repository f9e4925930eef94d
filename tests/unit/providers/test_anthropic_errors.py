"""AnthropicProvider failures: retries, HTTP errors, mid-stream errors, timeouts, cancellation."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable

import pytest

from agentls.contracts.model_io import ModelError, ModelEvent, TextDelta
from agentls.providers.anthropic import AnthropicProvider
from tests.fakes.anthropic_server import (
    FakeAnthropic,
    error_event_mid_stream,
    malformed,
    raw,
    stall,
    status,
    turn,
)
from tests.unit.providers.helpers import collect, done, request

Build = Callable[..., AnthropicProvider]


async def fail(provider: AnthropicProvider) -> ModelError:
    with pytest.raises(ModelError) as error:
        await collect(provider, request())
    assert "\n" not in str(error.value), "messages are one line for a person"
    return error.value


@pytest.mark.parametrize("code", [429, 529])
async def test_retryable_status_then_success(
    fake: FakeAnthropic, make_provider: Build, code: int
) -> None:
    fake.add(status(code), turn("recovered"))
    final = done(await collect(make_provider(max_retries=2), request()))
    assert final.message.text == "recovered"
    assert len(fake.requests) == 2
    assert fake.requests[1].body == fake.requests[0].body


async def test_persistent_500_is_an_api_error_after_retries(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    fake.add(*[status(500, message="boom")] * 3)
    error = await fail(make_provider(max_retries=2))
    assert (error.kind, error.status) == ("api", 500)
    assert "boom" in str(error)
    assert len(fake.requests) == 3 and fake.pending == 0


async def test_persistent_overload_is_overloaded(fake: FakeAnthropic, make_provider: Build) -> None:
    fake.add(status(529), status(529))
    error = await fail(make_provider(max_retries=1))
    assert (error.kind, error.status) == ("overloaded", 529)


@pytest.mark.parametrize(
    ("code", "message", "kind"),
    [
        (401, "invalid x-api-key", "auth"),
        (403, "not allowed", "permission"),
        (404, "model: claude-test", "not_found"),
        (400, "messages.0.content: field required", "bad_request"),
        (400, "prompt is too long: 210000 tokens > 200000 maximum", "prompt_too_long"),
        (413, "request too large", "prompt_too_long"),
    ],
)
async def test_client_errors_are_not_retried_and_named(
    fake: FakeAnthropic, make_provider: Build, code: int, message: str, kind: str
) -> None:
    fake.add(status(code, message=message), turn("never sent"))
    error = await fail(make_provider(max_retries=3))
    assert (error.kind, error.status) == (kind, code)
    assert message in str(error)
    assert len(fake.requests) == 1
    if kind == "not_found":
        assert "'claude-test'" in str(error)
    if kind == "auth":
        assert "ANTHROPIC_API_KEY" in str(error)


@pytest.mark.parametrize(
    ("error_type", "kind"), [("overloaded_error", "overloaded"), ("api_error", "stream")]
)
async def test_error_event_mid_stream_is_not_retried(
    fake: FakeAnthropic, make_provider: Build, error_type: str, kind: str
) -> None:
    fake.add(
        error_event_mid_stream(type=error_type, message="went wrong", text="half an ans"),
        turn("never"),
    )
    seen: list[ModelEvent] = []
    with pytest.raises(ModelError) as error:
        async with asyncio.timeout(15):
            async for event in make_provider(max_retries=3).stream(request()):
                seen.append(event)
    assert (error.value.kind, error.value.status) == (kind, 200)
    assert "went wrong" in str(error.value)
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "half an ans"
    assert len(fake.requests) == 1


async def test_read_timeout_mid_stream(fake: FakeAnthropic, make_provider: Build) -> None:
    fake.add(stall(30))
    started = time.monotonic()
    error = await fail(make_provider(timeout_seconds=0.5, max_retries=0))
    assert error.kind == "timeout"
    assert time.monotonic() - started < 10


async def test_malformed_stream(fake: FakeAnthropic, make_provider: Build) -> None:
    fake.add(malformed(), turn("never"))
    error = await fail(make_provider(max_retries=2))
    assert error.kind == "stream"
    assert len(fake.requests) == 1


async def test_no_scripted_reply_fails_loudly(fake: FakeAnthropic, make_provider: Build) -> None:
    error = await fail(make_provider(max_retries=3))
    assert "no scripted response left" in str(error)
    assert len(fake.requests) == 1


async def test_connection_refused(make_provider: Build) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    error = await fail(make_provider(base_url=f"http://127.0.0.1:{port}", max_retries=0))
    assert error.kind == "connection"


async def test_cancellation_propagates_and_closes_the_stream(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    fake.add(stall(30, text="streaming..."))
    first_text = asyncio.Event()

    async def consume() -> None:
        async for event in make_provider().stream(request()):
            if isinstance(event, TextDelta):
                first_text.set()

    task = asyncio.create_task(consume())
    async with asyncio.timeout(10):
        await first_text.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(fake.wait_for_disconnect, 1, 5.0), (
        "the HTTP response was not closed"
    )


START = {
    "type": "message_start",
    "message": {
        "id": "m1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "usage": {"input_tokens": 3, "output_tokens": 1},
    },
}
TEXT_START = {
    "type": "content_block_start",
    "index": 0,
    "content_block": {"type": "text", "text": ""},
}


async def test_unknown_event_types_are_skipped(fake: FakeAnthropic, make_provider: Build) -> None:
    fake.add(
        raw(
            [
                ("message_start", START),
                ("brand_new_event", {"type": "brand_new_event", "index": 0}),
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "brand_new_block", "x": 1},
                    },
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_stop", {"type": "message_stop"}),
            ]
        )
    )
    final = done(await collect(make_provider(), request()))
    assert final.message.content == () and final.stop_reason == "other"


@pytest.mark.parametrize(
    "bad_event",
    [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": "0",
                "delta": {"type": "text_delta", "text": "a"},
            },
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 0}),
        ("content_block_delta", "[1, 2"),
    ],
)
async def test_unexpected_json_is_a_stream_error(
    fake: FakeAnthropic, make_provider: Build, bad_event: tuple[str, object]
) -> None:
    fake.add(raw([("message_start", START), ("content_block_start", TEXT_START), bad_event]))
    assert (await fail(make_provider(max_retries=0))).kind == "stream"


async def test_stream_cut_before_message_stop_is_a_stream_error(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    fake.add(raw([("message_start", START), ("content_block_start", TEXT_START)]))
    assert (await fail(make_provider(max_retries=0))).kind == "stream"
