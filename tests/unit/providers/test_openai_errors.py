"""OpenAIProvider failures through the real openai SDK: retries, HTTP errors, broken streams."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest

from agentls.contracts.model_io import ModelError, ModelEvent, TextDelta
from agentls.providers.openai_compat import OpenAIProvider
from tests.fakes.openai_server import FakeOpenAI, chat, dropped, malformed, raw, stall, status
from tests.unit.providers.helpers import collect, done, request

Build = Callable[..., OpenAIProvider]


async def fail(provider: OpenAIProvider, seen: list[ModelEvent] | None = None) -> ModelError:
    seen = [] if seen is None else seen
    with pytest.raises(ModelError) as error:
        async with asyncio.timeout(15):  # a hung stream fails instead of hanging the run
            async for event in provider.stream(request()):
                seen.append(event)
    assert "\n" not in str(error.value), "messages are one line for a person"
    return error.value


@pytest.mark.parametrize("code", [429, 500, 503])
async def test_retryable_status_then_success(
    openai_fake: FakeOpenAI, make_openai_provider: Build, code: int
) -> None:
    openai_fake.add(status(code), chat("recovered"))
    final = done(await collect(make_openai_provider(max_retries=2), request()))
    assert final.message.text == "recovered"
    assert len(openai_fake.requests) == 2
    assert openai_fake.requests[1].body == openai_fake.requests[0].body


async def test_persistent_500_is_an_api_error_after_retries(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(*[status(500, message="boom")] * 3)
    error = await fail(make_openai_provider(max_retries=2))
    assert (error.kind, error.status) == ("api", 500)
    assert "boom" in str(error)
    assert len(openai_fake.requests) == 3 and openai_fake.pending == 0


async def test_persistent_429_is_a_rate_limit(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(status(429), status(429))
    error = await fail(make_openai_provider(max_retries=1))
    assert (error.kind, error.status) == ("rate_limit", 429)


@pytest.mark.parametrize(
    ("code", "message", "error_code", "kind"),
    [
        (401, "Incorrect API key provided: test-key", "invalid_api_key", "auth"),
        (403, "Country, region, or territory not supported", None, "permission"),
        (404, "The model `gpt-test` does not exist", "model_not_found", "not_found"),
        (400, "Invalid value for 'tool_choice'", None, "bad_request"),
        (
            400,
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130017 tokens. Please reduce the length of the messages.",
            "context_length_exceeded",
            "prompt_too_long",
        ),
    ],
    ids=["auth", "permission", "not_found", "bad_request", "prompt_too_long"],
)
async def test_client_errors_are_not_retried_and_named(
    openai_fake: FakeOpenAI,
    make_openai_provider: Build,
    code: int,
    message: str,
    error_code: str | None,
    kind: str,
) -> None:
    openai_fake.add(status(code, message=message, error_code=error_code), chat("never sent"))
    error = await fail(make_openai_provider(max_retries=3))
    assert (error.kind, error.status) == (kind, code)
    assert message in str(error)
    assert len(openai_fake.requests) == 1


@pytest.mark.parametrize("abrupt", [True, False], ids=["connection-cut", "body-ends-early"])
async def test_dropped_stream_is_an_error_not_a_short_answer(
    openai_fake: FakeOpenAI, make_openai_provider: Build, abrupt: bool
) -> None:
    openai_fake.add(dropped("half an answ", abrupt=abrupt), chat("never"))
    seen: list[ModelEvent] = []
    error = await fail(make_openai_provider(max_retries=3), seen)
    assert error.kind in ("stream", "connection")
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "half an answ"
    assert len(openai_fake.requests) == 1  # a stream that has started is never retried


async def test_read_timeout_mid_stream(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(stall(30, text="slow"))
    started = time.monotonic()
    error = await fail(make_openai_provider(timeout_seconds=0.5, max_retries=0))
    assert error.kind == "timeout"
    assert time.monotonic() - started < 10


async def test_malformed_data_line(openai_fake: FakeOpenAI, make_openai_provider: Build) -> None:
    openai_fake.add(malformed(), chat("never"))
    assert (await fail(make_openai_provider(max_retries=2))).kind == "stream"
    assert len(openai_fake.requests) == 1


async def test_error_object_mid_stream(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    error_line = json.dumps({"error": {"message": "the engine stalled", "type": "server_error"}})
    text = {"choices": [{"index": 0, "delta": {"content": "par"}, "finish_reason": None}]}
    openai_fake.add(raw([text, error_line], done=False), chat("never"))
    error = await fail(make_openai_provider(max_retries=2))
    assert error.kind in ("stream", "api")
    assert "the engine stalled" in str(error)
    assert len(openai_fake.requests) == 1


@pytest.mark.parametrize(
    "bad_chunk",
    [
        {"choices": [{"index": 0, "delta": {"content": 5}, "finish_reason": "stop"}]},
        {"choices": None},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": 7}]}}]},
        "[1, 2]",
    ],
    ids=["content-not-a-string", "choices-null", "function-not-an-object", "json-array"],
)
async def test_unexpected_json_is_a_stream_error(
    openai_fake: FakeOpenAI, make_openai_provider: Build, bad_chunk: dict[str, Any] | str
) -> None:
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    openai_fake.add(raw([bad_chunk, stop]))
    assert (await fail(make_openai_provider(max_retries=0))).kind == "stream"


async def test_no_scripted_reply_fails_loudly_without_retries(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    error = await fail(make_openai_provider(max_retries=3))
    assert "no scripted response left" in str(error)
    assert len(openai_fake.requests) == 1  # x-should-retry: false is honoured


async def test_connection_refused(make_openai_provider: Build) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    error = await fail(make_openai_provider(base_url=f"http://127.0.0.1:{port}/v1", max_retries=0))
    assert error.kind == "connection"


async def test_cancellation_propagates_and_closes_the_stream(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(stall(30, text="streaming..."))
    first_text = asyncio.Event()

    async def consume() -> None:
        async for event in make_openai_provider().stream(request()):
            if isinstance(event, TextDelta):
                first_text.set()

    task = asyncio.create_task(consume())
    async with asyncio.timeout(10):
        await first_text.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(openai_fake.wait_for_disconnect, 1, 5.0), (
        "the HTTP response was not closed"
    )
