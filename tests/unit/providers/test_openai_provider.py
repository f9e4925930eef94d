"""OpenAIProvider through the real openai SDK against the fake server: happy paths."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import openai
import pytest

from agentls.contracts.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_prompt,
    user_text,
)
from agentls.contracts.model_io import MessageDone, TextDelta, ThinkingDelta, ToolSpec
from agentls.contracts.reasoning import Reasoning
from agentls.contracts.usage import Usage
from agentls.providers.openai_compat import OpenAIProvider
from tests.fakes.openai_server import FakeOpenAI, chat, raw
from tests.unit.providers.helpers import collect, done, request

Build = Callable[..., OpenAIProvider]
ROOT = Path(__file__).resolve().parents[3]


def test_names() -> None:
    provider = OpenAIProvider("gpt-4.1-mini", api_key="k")
    assert (provider.model_id, provider.model_name) == ("openai:gpt-4.1-mini", "gpt-4.1-mini")


async def test_text_streams_as_deltas_then_one_message(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(chat("Hello there, brave new world"))
    events = await collect(make_openai_provider(), request())

    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(d.text for d in deltas) == "Hello there, brave new world"
    assert [type(e) for e in events] == [TextDelta] * len(deltas) + [MessageDone]
    final = done(events)
    assert final.message == Message("assistant", (TextBlock("Hello there, brave new world"),))
    assert final.stop_reason == "end_turn"


async def test_tool_arguments_split_at_awkward_places_are_parsed(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    arguments = {"path": 'src/"odd" name.py', "lines": [1, 20], "note": "ünïcode \\ back"}
    openai_fake.add(chat("Reading.", tool_calls=[("call_1", "read_file", arguments)]))
    events = await collect(make_openai_provider(), request())

    # The fake sends the arguments in pieces cut mid-token; the loop reads the call whole.
    final = done(events)
    block = ToolUseBlock("call_1", "read_file", arguments)
    assert final.message.content == (TextBlock("Reading."), block)
    assert final.stop_reason == "tool_use"
    assert all(isinstance(e, TextDelta) for e in events[:-1])


@pytest.mark.parametrize("interleave", [True, False])
async def test_two_tool_calls_keep_order_ids_and_arguments(
    openai_fake: FakeOpenAI, make_openai_provider: Build, interleave: bool
) -> None:
    first, second = {"path": "a.py", "limit": 10}, {"pattern": 'def "x"', "glob": "*.py"}
    calls = [("call_a", "read_file", first), ("call_b", "grep", second)]
    openai_fake.add(chat(tool_calls=calls, interleave=interleave))
    events = await collect(make_openai_provider(), request())

    final = done(events)
    assert final.message.content == (
        ToolUseBlock("call_a", "read_file", first),
        ToolUseBlock("call_b", "grep", second),
    )
    assert final.stop_reason == "tool_use"


async def test_empty_and_cut_off_arguments(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    cut = '{"path": "a.py", "content": "def f():\\n  ret'
    openai_fake.add(
        chat(tool_calls=[("c1", "list", ""), ("c2", "write", cut)], finish_reason="length")
    )
    final = done(await collect(make_openai_provider(), request()))

    assert final.message.tool_uses == (
        ToolUseBlock("c1", "list", {}),
        ToolUseBlock("c2", "write", {"__invalid_json__": cut}),
    )
    assert final.stop_reason == "max_tokens"


async def test_usage_from_the_last_chunk(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    usage = {"prompt_tokens": 120, "completion_tokens": 42}
    openai_fake.add(chat("ok", usage=usage | {"prompt_tokens_details": {"cached_tokens": 20}}))
    # prompt_tokens counts the cached ones too; Usage keeps them apart (as Anthropic
    # reports them), so pricing does not count them twice.
    assert done(await collect(make_openai_provider(), request())).usage == Usage(100, 42, 20, 0)


async def test_usage_is_estimated_when_the_server_sends_none(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    # llama.cpp's server streams no usage; token budgets must still hold.
    openai_fake.add(chat("a" * 400, usage=None))
    usage = done(await collect(make_openai_provider(), request(system="s" * 4000))).usage
    assert 1000 < usage.input_tokens < 1100
    assert usage.output_tokens == 101
    assert usage.cache_read_tokens == 0


@pytest.mark.parametrize(
    ("sent", "expected"),
    [("stop", "end_turn"), ("length", "max_tokens"), ("content_filter", "refusal")],
)
async def test_finish_reasons(
    openai_fake: FakeOpenAI, make_openai_provider: Build, sent: str, expected: str
) -> None:
    openai_fake.add(chat("partial", finish_reason=sent))
    assert done(await collect(make_openai_provider(), request())).stop_reason == expected


async def test_request_mapping(openai_fake: FakeOpenAI, make_openai_provider: Build) -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    history = (
        user_text("read them"),
        Message(
            "assistant",
            (
                TextBlock("Let me look."),
                ToolUseBlock("call_9", "read_file", {"path": "x"}),
                ToolUseBlock("call_10", "read_file", {"path": 'y "z"'}),
            ),
        ),
        Message(
            "user",
            (
                ToolResultBlock("call_9", "no such file: x", is_error=True),
                ToolResultBlock("call_10", "1: print('y')"),
            ),
        ),
        Message("assistant", (ToolUseBlock("call_11", "read_file", {"path": "w"}),)),
        Message("user", (ToolResultBlock("call_11", "empty"),)),
    )
    openai_fake.add(chat("done"))
    tools = (ToolSpec("read_file", "Read a file", schema),)
    await collect(make_openai_provider(), request(*history, system="Be careful.", tools=tools))

    sent = openai_fake.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer test-key"
    body = sent.body
    assert (body["model"], body["stream"]) == ("gpt-test", True)
    assert body["stream_options"] == {"include_usage": True}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "read_file", "description": "Read a file", "parameters": schema},
        }
    ]
    messages = body["messages"]
    for message in messages:  # arguments are a JSON string; compare them parsed
        for call in message.get("tool_calls") or ():
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])

    def call(call_id: str, path: str) -> dict[str, Any]:
        function = {"name": "read_file", "arguments": {"path": path}}
        return {"id": call_id, "type": "function", "function": function}

    roles = ["system", "user", "assistant", "tool", "tool", "assistant", "tool"]
    assert [m["role"] for m in messages] == roles
    assert messages[:3] == [
        {"role": "system", "content": "Be careful."},
        {"role": "user", "content": "read them"},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [call("call_9", "x"), call("call_10", 'y "z"')],
        },
    ]
    assert messages[3]["tool_call_id"] == "call_9"
    assert "no such file: x" in messages[3]["content"]
    assert messages[4] == {"role": "tool", "tool_call_id": "call_10", "content": "1: print('y')"}
    assert messages[5] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [call("call_11", "w")],
    }
    assert messages[6] == {"role": "tool", "tool_call_id": "call_11", "content": "empty"}


async def test_a_tool_turn_round_trips(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    calls = [("call_a", "read_file", {"path": "a.py"}), ("call_b", "grep", {"pattern": "x"})]
    openai_fake.add(chat(tool_calls=calls), chat("Both read."))
    provider = make_openai_provider()
    turn = done(await collect(provider, request(user_text("go"), system=""))).message
    results = Message("user", (ToolResultBlock("call_a", "A"), ToolResultBlock("call_b", "B")))
    await collect(provider, request(user_text("go"), turn, results, system=""))

    first, second = (r.body["messages"] for r in openai_fake.requests)
    assert first == [{"role": "user", "content": "go"}]  # no system message when empty
    assert "tools" not in openai_fake.requests[0].body
    sent_calls = [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in second[1]["tool_calls"]
    ]
    assert sent_calls == [tuple(c) for c in calls]
    assert second[2:] == [
        {"role": "tool", "tool_call_id": "call_a", "content": "A"},
        {"role": "tool", "tool_call_id": "call_b", "content": "B"},
    ]


# --- the fake itself: what the provider tests rely on ------------------------


async def test_fake_sends_usage_only_when_asked(openai_fake: FakeOpenAI) -> None:
    client = openai.AsyncOpenAI(base_url=openai_fake.base_url, api_key="k", max_retries=0)
    usage = {"prompt_tokens": 7, "completion_tokens": 3}
    openai_fake.add(chat("a", usage=usage), chat("b", usage=usage))
    messages: Any = [{"role": "user", "content": "hi"}]
    options: Any = {"include_usage": True}
    asked = await client.chat.completions.create(
        model="m", messages=messages, stream=True, stream_options=options
    )
    chunks = [chunk async for chunk in asked]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens == 10
    plain = await client.chat.completions.create(model="m", messages=messages, stream=True)
    plain_chunks = [chunk async for chunk in plain]
    assert plain_chunks and all(c.choices and c.usage is None for c in plain_chunks)


def test_fake_standalone_serves_a_script_and_records(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"kind": "status", "code": 429}, {"kind": "chat", "text": "hi"}]))
    port_file, record = tmp_path / "port", tmp_path / "requests.jsonl"
    command = [sys.executable, "-m", "tests.fakes.openai_server", "--script", str(script)]
    command += ["--port-file", str(port_file), "--record", str(record)]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) as server:
        try:
            assert server.stdout is not None
            base_url = server.stdout.readline().strip()  # printed once listening
            assert base_url == f"http://127.0.0.1:{port_file.read_text()}/v1"
            client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=1)
            messages: Any = [{"role": "user", "content": "hi"}]
            stream = client.chat.completions.create(model="m", messages=messages, stream=True)
            assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "hi"
        finally:
            server.terminate()
        assert server.wait(timeout=10) == 0
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [line["path"] for line in lines] == ["/v1/chat/completions"] * 2


async def test_a_name_repeated_in_every_chunk_is_read_once(
    openai_fake, make_openai_provider
) -> None:
    # llama.cpp's server repeats function.name with each argument piece.
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]},
        *[
            {"choices": [{"index": 0, "finish_reason": None, "delta": {"tool_calls": [
                {"index": 0, "id": "call_1", "type": "function",
                 "function": {"name": "list_files", "arguments": piece}}]}}]}
            for piece in ('{"', "path", '": "', "src", '"}')
        ],
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]  # fmt: skip
    openai_fake.add(raw(chunks))
    (use,) = done(await collect(make_openai_provider(), request())).message.tool_uses
    assert (use.name, use.input) == ("list_files", {"path": "src"})


async def test_temperature_and_tool_choice_are_sent(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    spec = ToolSpec("list_files", "List files.", {"type": "object", "properties": {}})
    openai_fake.add(chat("a"), chat("b"))
    await collect(
        make_openai_provider(temperature=0, tool_choice="list_files"), request(tools=(spec,))
    )
    await collect(make_openai_provider(tool_choice="required"), request(tools=(spec,)))
    forced, required = (r.body for r in openai_fake.requests)
    assert forced["temperature"] == 0
    assert forced["tool_choice"] == {"type": "function", "function": {"name": "list_files"}}
    assert required["tool_choice"] == "required" and "temperature" not in required


async def test_reasoning_effort_is_sent_as_chosen_and_thoughts_stream_as_thinking(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(chat("Answer.", reasoning="Step by step.",
                  usage={"prompt_tokens": 9, "completion_tokens": 30,
                         "completion_tokens_details": {"reasoning_tokens": 25}}))  # fmt: skip
    chosen = Reasoning("high", "effort", effort="high", reasoning_model=True)
    events = await collect(make_openai_provider(), replace(request(), reasoning=chosen))
    body = openai_fake.requests[0].body
    assert body["reasoning_effort"] == "high"
    assert body["max_completion_tokens"] == 8192 and "max_tokens" not in body
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Step by step."
    final = done(events)
    assert final.message.content == (ThinkingBlock("Step by step."), TextBlock("Answer."))
    assert final.usage.thinking_tokens == 25 and final.usage.output_tokens == 30


async def test_a_models_own_default_sends_no_effort_and_thoughts_are_never_sent_back(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(chat("ok"), chat("ok"))
    provider = make_openai_provider()
    default = Reasoning("medium", "effort", reasoning_model=True)
    await collect(provider, replace(request(), reasoning=default))
    earlier = Message("assistant", (ThinkingBlock("private"), TextBlock("hello")))
    await collect(provider, request(user_text("hi"), earlier, user_text("again")))
    first, second = (r.body for r in openai_fake.requests)
    assert "reasoning_effort" not in first and first["max_completion_tokens"] == 8192
    assert "reasoning_effort" not in second and second["max_tokens"] == 8192
    assert {"role": "assistant", "content": "hello"} in second["messages"]
    assert "private" not in json.dumps(second)


async def test_images_go_as_data_urls_before_the_words(
    openai_fake: FakeOpenAI, make_openai_provider: Build
) -> None:
    openai_fake.add(chat("A dot."))
    image = ImageBlock("image/gif", "cd" * 32, 30, 1, 1, "R0lG")
    await collect(make_openai_provider(), request(user_prompt("what?", (image,))))
    user = openai_fake.requests[0].body["messages"][-1]
    assert user == {
        "role": "user",
        "content": [
            {"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lG"}},
            {"type": "text", "text": "what?"},
        ],
    }
