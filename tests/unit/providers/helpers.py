"""Small helpers shared by the provider tests."""

from __future__ import annotations

import asyncio

from agentls.contracts.messages import Message, user_text
from agentls.contracts.model_io import MessageDone, ModelEvent, ModelInput, ToolSpec
from agentls.providers.anthropic import AnthropicProvider


def request(
    *messages: Message, system: str = "You are terse.", tools: tuple[ToolSpec, ...] = ()
) -> ModelInput:
    return ModelInput(system=system, messages=messages or (user_text("hi"),), tools=tools)


async def collect(provider: AnthropicProvider, model_input: ModelInput) -> list[ModelEvent]:
    # A guard so a hung stream fails the test instead of hanging the run.
    async with asyncio.timeout(15):
        return [event async for event in provider.stream(model_input)]


def done(events: list[ModelEvent]) -> MessageDone:
    assert isinstance(events[-1], MessageDone), events[-1]
    assert not any(isinstance(e, MessageDone) for e in events[:-1])
    return events[-1]
