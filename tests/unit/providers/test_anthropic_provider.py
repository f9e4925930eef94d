"""AnthropicProvider through the real anthropic SDK against the fake server: happy paths."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agentls.contracts.model_io import (
    MessageDone,
    ModelError,
    TextDelta,
    ThinkingDelta,
    ToolSpec,
)
from agentls.contracts.usage import Usage
from agentls.providers.anthropic import AnthropicProvider, require_api_key
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.unit.providers.helpers import collect, done, request

Build = Callable[..., AnthropicProvider]


def test_names() -> None:
    provider = AnthropicProvider("claude-sonnet-4-5", api_key="k")
    assert provider.model_id == "anthropic:claude-sonnet-4-5"
    assert provider.model_name == "claude-sonnet-4-5"


async def test_text_streams_as_deltas_then_one_message(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    fake.add(turn("Hello there, brave new world"))
    events = await collect(make_provider(), request())

    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(d.text for d in deltas) == "Hello there, brave new world"
    assert [type(e) for e in events] == [TextDelta] * len(deltas) + [MessageDone]
    final = done(events)
    assert final.message == Message("assistant", (TextBlock("Hello there, brave new world"),))
    assert final.stop_reason == "end_turn"


async def test_tool_use_input_split_at_awkward_places_is_parsed(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    tool_input = {"path": 'src/"odd" name.py', "lines": [1, 20], "note": "ünïcode \\ back"}
    fake.add(turn("Reading.", tool_calls=[("toolu_1", "read_file", tool_input)]))
    events = await collect(make_provider(), request())

    # The fake sends the input in pieces cut mid-token; the loop reads the call whole.
    final = done(events)
    assert final.message.content == (
        TextBlock("Reading."),
        ToolUseBlock("toolu_1", "read_file", tool_input),
    )
    assert final.stop_reason == "tool_use"
    assert all(isinstance(e, TextDelta) for e in events[:-1])


async def test_empty_and_cut_off_tool_input(fake: FakeAnthropic, make_provider: Build) -> None:
    cut = '{"path": "a.py", "content": "def f():\\n  ret'
    fake.add(turn(tool_calls=[("t1", "list", ""), ("t2", "write", cut)], stop_reason="max_tokens"))
    final = done(await collect(make_provider(), request()))

    assert final.message.tool_uses == (
        ToolUseBlock("t1", "list", {}),
        ToolUseBlock("t2", "write", {"__invalid_json__": cut}),
    )
    assert final.stop_reason == "max_tokens"


async def test_thinking_is_kept_verbatim_and_sent_back_unchanged(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    fake.add(
        turn(
            "Answer.",
            thinking="Let me think step by step.",
            signature="sig-Abc/123+==",
            redacted_thinking="RED4CT3D",
        ),
        turn("Next answer."),
    )
    provider = make_provider()
    events = await collect(provider, request())
    assert (
        "".join(e.text for e in events if isinstance(e, ThinkingDelta))
        == "Let me think step by step."
    )
    first = done(events).message
    assert first.content[:2] == (
        ThinkingBlock("Let me think step by step.", "sig-Abc/123+=="),
        ThinkingBlock("", "", "RED4CT3D"),
    )

    await collect(provider, request(user_text("q1"), first, user_text("q2")))
    sent = fake.requests[1].body["messages"][1]
    assert sent == {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": "Let me think step by step.",
                "signature": "sig-Abc/123+==",
            },
            {"type": "redacted_thinking", "data": "RED4CT3D"},
            {"type": "text", "text": "Answer."},
        ],
    }


async def test_usage_takes_final_values_incl_cache(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    usage = {
        "input_tokens": 120,
        "output_tokens": 42,
        "cache_read_input_tokens": 7,
        "cache_creation_input_tokens": 3,
    }
    fake.add(turn("ok", usage=usage))
    assert done(await collect(make_provider(), request())).usage == Usage(120, 42, 7, 3)


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("max_tokens", "max_tokens"),
        ("refusal", "refusal"),
        ("stop_sequence", "stop_sequence"),
        ("pause_turn", "pause_turn"),
        ("model_context_window_exceeded", "other"),
    ],
)
async def test_stop_reasons(
    fake: FakeAnthropic, make_provider: Build, sent: str, expected: str
) -> None:
    fake.add(turn("partial", stop_reason=sent))
    assert done(await collect(make_provider(), request())).stop_reason == expected


async def test_request_mapping(fake: FakeAnthropic, make_provider: Build) -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    history = (
        user_text("read it"),
        Message("assistant", (TextBlock(""), ToolUseBlock("toolu_9", "read_file", {"path": "x"}))),
        Message("user", (ToolResultBlock("toolu_9", "no such file: x", is_error=True),)),
    )
    fake.add(turn("sorry"))
    await collect(
        make_provider(prompt_caching=False),  # breakpoints: tests/unit/context/test_prompt_cache.py
        request(
            *history, system="Be careful.", tools=(ToolSpec("read_file", "Read a file", schema),)
        ),
    )

    body = fake.requests[0].body
    assert fake.requests[0].path == "/v1/messages"
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 8192
    assert body["stream"] is True
    assert body["system"] == [{"type": "text", "text": "Be careful."}]
    assert body["tools"] == [
        {"name": "read_file", "description": "Read a file", "input_schema": schema}
    ]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "read it"}]},
        # the empty text block is dropped: the API rejects it
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_9", "name": "read_file", "input": {"path": "x"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_9",
                    "content": "no such file: x",
                    "is_error": True,
                }
            ],
        },
    ]


async def test_no_system_or_tools_keys_when_empty(
    fake: FakeAnthropic, make_provider: Build
) -> None:
    fake.add(turn("ok"))
    await collect(make_provider(max_output_tokens=100), request(system=""))
    body = fake.requests[0].body
    assert "system" not in body and "tools" not in body
    assert body["max_tokens"] == 100


def test_require_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with pytest.raises(ConfigError) as missing:
        require_api_key()
    assert "ANTHROPIC_API_KEY" in str(missing.value)
    assert "export ANTHROPIC_API_KEY=" in str(missing.value)
    assert "--model scripted:FILE" in str(missing.value)

    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-1")
    assert require_api_key() == "token-1"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert require_api_key() == "sk-ant-test"


async def test_no_key_anywhere_is_an_auth_error_before_any_request(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    provider = AnthropicProvider("claude-test", base_url=fake.base_url)
    with pytest.raises(ModelError) as error:
        await collect(provider, request())
    assert error.value.kind == "auth"
    assert fake.requests == []


async def test_key_from_environment_is_used(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
    fake.add(turn("ok"))
    await collect(AnthropicProvider("claude-test"), request())
    assert "sk-ant-from-env" in " ".join(fake.requests[0].headers.values())


async def test_temperature_and_tool_choice_reach_the_api(fake) -> None:
    from agentls.contracts.model_io import ToolSpec
    from agentls.providers.anthropic import AnthropicProvider
    from tests.fakes.anthropic_server import turn

    spec = ToolSpec("read_file", "Read.", {"type": "object", "properties": {}})
    fake.add(turn("a"), turn("b"))
    for choice in ("read_file", "required"):
        provider = AnthropicProvider(
            "claude-test", api_key="k", base_url=fake.base_url, tool_choice=choice
        )
        _ = [e async for e in provider.stream(request(tools=(spec,)))]
    forced, required = (r.body for r in fake.requests)
    assert forced["tool_choice"] == {"type": "tool", "name": "read_file"}
    assert required["tool_choice"] == {"type": "any"}
