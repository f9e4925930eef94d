"""`agentls acp` with the Python SDK's client: image prompts and the reasoning option,
against the fake Anthropic server (what it receives is the proof)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from acp import RequestError, image_block, text_block

from tests.e2e.acp.client import RecordingClient, agent, anthropic_env
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import png


async def test_an_image_prompt_reaches_the_model_as_an_image_block(
    isolated_state: Path, workspace: Path
) -> None:
    picture = png(5, 4)
    encoded = base64.b64encode(picture).decode()
    client = RecordingClient()
    with FakeAnthropic([turn("A grey square.")]) as fake:
        async with agent(
            client, "anthropic:claude-sonnet-4-5", workspace, env=anthropic_env(fake)
        ) as (conn, _):
            started = await conn.initialize(protocol_version=1)
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            answer = await conn.prompt(
                session_id=session.session_id,
                prompt=[image_block(data=encoded, mime_type="image/png"), text_block("what?")],
            )
        sent = fake.requests[0].body["messages"][0]["content"]
    assert started.agent_capabilities is not None
    assert started.agent_capabilities.prompt_capabilities.image is True
    assert answer.stop_reason == "end_turn"
    image, words = sent
    assert image["type"] == "image"
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": encoded}
    assert words["text"] == "what?"
    (stored,) = (isolated_state / "sessions").glob("*/images/*")
    assert stored.read_bytes() == picture


async def test_an_image_the_model_does_not_take_is_refused_and_nothing_is_sent(
    isolated_state: Path, workspace: Path
) -> None:
    encoded = base64.b64encode(png()).decode()
    client = RecordingClient()
    with FakeAnthropic([turn("never")]) as fake:
        async with agent(
            client, "anthropic:claude-3-5-haiku-latest", workspace, env=anthropic_env(fake)
        ) as (conn, _):
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            with pytest.raises(RequestError) as refused:
                await conn.prompt(
                    session_id=session.session_id,
                    prompt=[image_block(data=encoded, mime_type="image/png"), text_block("hi")],
                )
        assert fake.requests == []
    assert "does not take images" in str(refused.value.data or refused.value)
    assert list((isolated_state / "sessions").glob("*/images/*")) == []


async def test_the_reasoning_option_set_by_the_client_is_in_the_next_request(
    isolated_state: Path, workspace: Path
) -> None:
    replies = [turn("Plain."), turn("Thought it through.", thinking="Step one, step two.")]
    client = RecordingClient()
    with FakeAnthropic(replies) as fake:
        async with agent(
            client, "anthropic:claude-sonnet-4-5", workspace, env=anthropic_env(fake)
        ) as (conn, _):
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            (option,) = [o for o in session.config_options or [] if o.id == "reasoning"]
            await conn.prompt(session_id=session.session_id, prompt=[text_block("one")])
            changed = await conn.set_config_option(
                config_id="reasoning", session_id=session.session_id, value="high"
            )
            await conn.prompt(session_id=session.session_id, prompt=[text_block("two")])
            with pytest.raises(RequestError):  # not a level
                await conn.set_config_option(
                    config_id="reasoning", session_id=session.session_id, value="extreme"
                )
        first, second = (r.body for r in fake.requests)
    assert option.category == "thought_level" and option.current_value == "off"
    assert [o.value for o in option.options] == ["off", "low", "medium", "high"]
    (now,) = [o for o in changed.config_options if o.id == "reasoning"]
    assert now.current_value == "high"
    assert "thinking" not in first
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 32000}
    assert second["max_tokens"] == 8192 + 32000
    assert client.text("agent_thought_chunk") == "Step one, step two."
