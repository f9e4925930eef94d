"""The scripted model's branches: `choose` on what the last tool result said,
`next` to go on elsewhere, and `laterAsks` for an ask after an earlier answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, user_text
from agentls.contracts.model_io import MessageDone, ModelError, ModelInput
from agentls.providers.scripted import ScriptedProvider


def said(provider: ScriptedProvider, *messages: Message) -> str:
    """The text of the turn the provider plays for ``messages``."""
    request = ModelInput(system="", messages=messages or (user_text("go"),), tools=())

    async def played() -> str:
        events = [event async for event in provider.stream(request)]
        done = events[-1]
        assert isinstance(done, MessageDone)
        return "".join(b.text for b in done.message.content if isinstance(b, TextBlock))

    return asyncio.run(played())


def result(content: str, *, error: bool = False) -> Message:
    return Message("user", (ToolResultBlock("toolu_1", content, is_error=error),))


def answer(text: str) -> Message:
    return Message("assistant", (TextBlock(text),))


CALL = Message("assistant", (ToolUseBlock("toolu_1", "run_command", {"command": "x"}),))

BRANCHING: list[dict[str, Any]] = [
    {"text": "first"},
    {
        "choose": [
            {"when": {"lastToolResultContains": "denied"}, "text": "you said no", "next": "end"},
            {"when": {"lastToolResultIsError": True}, "text": "it failed", "next": "end"},
            {"text": "it worked"},
        ]
    },
    {"text": "one more"},
    {"id": "end", "text": "the end", "next": "end"},
]


@pytest.mark.parametrize(
    ("last", "then"),
    [
        (result("Error (permission_denied): the user denied this call", error=True), "you said no"),
        (result("Error (timeout): too slow", error=True), "it failed"),
        (result("HELLO"), "it worked"),
    ],
)
def test_the_first_alternative_that_holds_is_played(last: Message, then: str) -> None:
    provider = ScriptedProvider(BRANCHING)
    assert said(provider) == "first"
    assert said(provider, user_text("go"), CALL, last) == then


def test_next_goes_on_at_the_named_turn_and_may_repeat_it() -> None:
    provider = ScriptedProvider(BRANCHING)
    said(provider)
    denied = result("Error (permission_denied): denied", error=True)
    assert said(provider, user_text("go"), CALL, denied) == "you said no"
    assert said(provider) == "the end"
    assert said(provider) == "the end"


def test_without_next_the_script_goes_on_in_order() -> None:
    provider = ScriptedProvider(BRANCHING)
    said(provider)
    said(provider, user_text("go"), CALL, result("HELLO"))
    assert said(provider) == "one more"


def test_no_alternative_fitting_is_a_script_error_naming_each() -> None:
    provider = ScriptedProvider(
        [{"choose": [{"when": {"lastToolResultContains": "yes"}, "text": "a"}]}]
    )
    with pytest.raises(ModelError, match="call 1 did not match the script") as raised:
        said(provider, user_text("go"), CALL, result("no"))
    assert "alternative 1: the last tool result should contain 'yes'" in str(raised.value)


def test_a_later_ask_starts_at_its_turn_in_this_process_and_in_a_new_one() -> None:
    turns: list[dict[str, Any]] = [{"text": "the task"}, {"id": "later", "text": "again?"}]
    provider = ScriptedProvider(turns, later_asks="later")
    assert said(provider, user_text("do it")) == "the task"
    history = (user_text("do it"), answer("the task"), user_text("and now?"))
    assert said(provider, *history) == "again?"
    resumed = ScriptedProvider(turns, later_asks="later")  # `--session` in a new process
    assert said(resumed, *history) == "again?"
    within = ScriptedProvider(turns, later_asks="later")  # a tool result is not a new ask
    assert said(within, user_text("do it"), CALL, result("x")) == "the task"


def test_the_bundled_demo_reads_and_its_later_ask_says_it_is_a_script() -> None:
    demo = ScriptedProvider.from_file("demo")
    history = (user_text("add shout"), answer("Done."), user_text("now a test"))
    assert "scripted demo, not a model" in said(demo, *history)


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ({"turns": [{"text": "a", "next": "nowhere"}]}, "turn 1's next names no turn"),
        ({"turns": [{"id": "a"}, {"id": "a"}]}, "turn 2 repeats id 'a'"),
        ({"turns": [{"choose": []}]}, "choose must be a list of turns"),
        ({"turns": [{"choose": [{"toolCalls": [{}]}]}]}, "a tool call without a name"),
        ({"turns": [{"text": "a"}], "laterAsks": "b"}, "laterAsks names no turn"),
        ({"turns": [{"text": "a"}], "laterAsks": 3}, "laterAsks must name a turn's id"),
    ],
)
def test_a_bad_script_is_refused_when_read(
    tmp_path: Path, script: dict[str, Any], problem: str
) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    with pytest.raises(ConfigError, match=problem):
        ScriptedProvider.from_file(str(path))
