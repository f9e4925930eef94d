"""A scripted model for demos and tests: a JSON script of model turns.

Script format (documented in the README)::

    {"turns": [
      {"text": "I'll create it.",                       # streamed as text deltas
       "thinking": "optional reasoning",
       "toolCalls": [{"name": "write_file", "input": {"path": "a.py", "content": "x"}}],
       "stopReason": "tool_use",              # default: tool_use with toolCalls, else end_turn
       "usage": {"input_tokens": 120, "output_tokens": 30},
       "expect": {"lastToolResultContains": "hello", "lastMessageContains": "note",
                  "toolsInclude": ["run_command"], "toolsExclude": ["write_file"]},
       "delaySeconds": 0.5,                               # before answering (cancel/timeout demos)
       "error": {"message": "overloaded", "kind": "overloaded"}}   # fail this call instead
    ]}

Each model call consumes the next turn. A call past the end of the script, or a
turn whose ``expect`` does not hold, fails loudly with ModelError (kind SCRIPT).
Every call is recorded in ``calls``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import (
    ContentBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentls.contracts.model_io import (
    BlockFinished,
    MessageDone,
    ModelError,
    ModelErrorKind,
    ModelEvent,
    ModelInput,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    ToolUseStarted,
)
from agentls.contracts.usage import Usage
from agentls.contracts.values import value

BUILTIN_SCRIPTS = {"demo": "data/demo/script.json"}
_STOP_REASONS = {"end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn"}


@value
class RecordedCall:
    """What the model was shown on one call (cheap: no copy of the history)."""

    index: int
    message_count: int
    tool_names: tuple[str, ...]
    last_message: Message | None


class ScriptedProvider:
    def __init__(self, turns: Sequence[dict[str, Any]], *, name: str = "script") -> None:
        self._turns = list(turns)
        self._name = name
        self.calls: list[RecordedCall] = []
        self._last_tools: object = None
        self._last_names: tuple[str, ...] = ()

    @classmethod
    def from_file(cls, spec: str) -> ScriptedProvider:
        """``spec`` is a path to a JSON script, or the name of a bundled one (``demo``)."""
        if spec in BUILTIN_SCRIPTS:
            text = resources.files("agentls").joinpath(BUILTIN_SCRIPTS[spec]).read_text("utf-8")
            return cls(_turns_from(json.loads(text), spec), name=spec)
        path = Path(spec).expanduser()
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"scripted model: no script file at {path}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"scripted model: cannot read {path}: {exc}") from None
        return cls(_turns_from(data, str(path)), name=path.stem)

    @property
    def model_id(self) -> str:
        return f"scripted:{self._name}"

    @property
    def model_name(self) -> str:
        return self._name

    async def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        index = len(self.calls)
        messages = request.messages
        tools = request.tools
        if tools is not self._last_tools:  # the same list turn after turn: named once
            self._last_tools, self._last_names = tools, tuple([t.name for t in tools])
        self.calls.append(
            RecordedCall(index, len(messages), self._last_names, messages[-1] if messages else None)
        )
        if index >= len(self._turns):
            raise ModelError(
                f"scripted model: call {index + 1} was not expected "
                f"(the script has {len(self._turns)} turns)",
                kind=ModelErrorKind.SCRIPT,
            )
        turn = self._turns[index]
        if "expect" in turn:
            _check_expectations(turn["expect"], request, index)
        if "delaySeconds" in turn:
            delay = float(turn["delaySeconds"])
            if delay > 0:
                await asyncio.sleep(delay)
        error = turn.get("error")
        if error is not None:
            raise ModelError(
                str(error.get("message", "scripted error")), kind=error.get("kind", "api")
            )
        for event in _render_turn(turn, index, len(messages)):
            yield event


def _turns_from(data: Any, origin: str) -> list[dict[str, Any]]:
    turns = data.get("turns") if isinstance(data, dict) else None
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise ConfigError(f"scripted model: {origin} must be an object with a list of turns")
    for number, turn in enumerate(turns, 1):
        for call in turn.get("toolCalls", []):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise ConfigError(f"scripted model: turn {number} has a tool call without a name")
        stop = turn.get("stopReason")
        if stop is not None and stop not in _STOP_REASONS:
            raise ConfigError(f"scripted model: turn {number} has unknown stopReason {stop!r}")
    return turns


def _check_expectations(expect: Any, request: ModelInput, index: int) -> None:
    if not expect:
        return
    tool_names = {t.name for t in request.tools}
    problems = [
        f"tool {name} should be offered"
        for name in expect.get("toolsInclude", [])
        if name not in tool_names
    ]
    problems += [
        f"tool {name} should not be offered"
        for name in expect.get("toolsExclude", [])
        if name in tool_names
    ]
    wanted = expect.get("lastToolResultContains")
    if wanted is not None:
        results = _last_tool_results(request.messages)
        if not any(wanted in r.content for r in results):
            seen = " | ".join(r.content[:200] for r in results) or "no tool result"
            problems.append(f"the last tool result should contain {wanted!r}; got: {seen}")
    anywhere = expect.get("lastMessageContains")
    if anywhere is not None:
        last = request.messages[-1] if request.messages else None
        seen = _all_text(last) if last is not None else ""
        if anywhere not in seen:
            problems.append(f"the last message should contain {anywhere!r}; got: {seen[:300]}")
    if problems:
        raise ModelError(
            f"scripted model: call {index + 1} did not match the script: " + "; ".join(problems),
            kind=ModelErrorKind.SCRIPT,
        )


def _all_text(message: Message) -> str:
    parts = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolResultBlock):
            parts.append(block.content)
    return "\n".join(parts)


def _last_tool_results(messages: Sequence[Message]) -> list[ToolResultBlock]:
    if not messages:
        return []
    return [b for b in messages[-1].content if isinstance(b, ToolResultBlock)]


def _render_turn(turn: dict[str, Any], index: int, message_count: int) -> list[ModelEvent]:
    events: list[ModelEvent] = []
    blocks: list[ContentBlock] = []
    thinking = turn.get("thinking")
    if thinking:
        block = ThinkingBlock(str(thinking), signature=f"scripted-signature-{index}")
        events.append(ThinkingDelta(len(blocks), block.thinking))
        events.append(BlockFinished(len(blocks), block))
        blocks.append(block)
    text = turn.get("text")
    if text:
        text_block = TextBlock(str(text))
        position = len(blocks)
        events += [TextDelta(position, chunk) for chunk in _chunks(text_block.text)]
        events.append(BlockFinished(position, text_block))
        blocks.append(text_block)
    calls = turn.get("toolCalls")
    for number, call in enumerate(calls or ()):
        given = call.get("input")
        use = ToolUseBlock(
            str(call.get("id") or f"toolu_scripted_{index}_{number}"),
            str(call["name"]),
            {} if given is None else dict(given),
        )
        position = len(blocks)
        events.append(ToolUseStarted(position, use.id, use.name))
        events.append(ToolInputDelta(position, orjson.dumps(use.input).decode()))
        events.append(BlockFinished(position, use))
        blocks.append(use)
    stop: StopReason = turn.get("stopReason") or ("tool_use" if calls else "end_turn")
    usage = _usage(turn.get("usage"), message_count, blocks)
    events.append(MessageDone(Message("assistant", tuple(blocks)), stop, usage))
    return events


def _chunks(text: str, size: int = 24) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _usage(given: Any, message_count: int, blocks: list[ContentBlock]) -> Usage:
    if isinstance(given, dict):
        return Usage.from_dict(given)
    # A deterministic O(1) estimate so budgets behave the same on every run.
    produced = sum(len(getattr(b, "text", "")) + len(getattr(b, "thinking", "")) for b in blocks)
    produced += sum(len(orjson.dumps(b.input)) for b in blocks if isinstance(b, ToolUseBlock))
    return Usage(input_tokens=100 + 20 * message_count, output_tokens=1 + produced // 4)
