"""A scripted model for demos and tests: a JSON script of model turns.

Script format (documented in docs/command-line.md)::

    {"turns": [
      {"text": "I'll create it.",                       # streamed as text deltas
       "thinking": "optional reasoning",
       "toolCalls": [{"name": "write_file", "input": {"path": "a.py", "content": "x"}}],
       "stopReason": "tool_use",              # default: tool_use with toolCalls, else end_turn
       "usage": {"input_tokens": 120, "output_tokens": 30},
       "expect": {"lastToolResultContains": "hello", "lastMessageContains": "note",
                  "lastToolResultIsError": false,
                  "toolsInclude": ["run_command"], "toolsExclude": ["write_file"]},
       "delaySeconds": 0.5,                               # before answering (cancel/timeout demos)
       "error": {"message": "overloaded", "kind": "overloaded"}},  # fail this call instead
      {"id": "check",                                     # a name for "next" and "laterAsks"
       "choose": [                                        # the first alternative whose
         {"when": {"lastToolResultContains": "Error (permission_denied)"},  # "when" holds
          "text": "You said no, so I stop here."},        # (same keys as "expect")
         {"text": "Running it.", "toolCalls": [...], "next": "check"}]}  # no "when": always
    ],
     "laterAsks": "again"}        # a later ask in the same session starts at turn "again"

Each model call plays the turn at the script's position and moves on to the
next turn, or to the one its ``next`` names. A turn with ``choose`` plays its
first alternative whose ``when`` holds (an alternative is a turn of its own).
With ``laterAsks``, a call that starts an ask in a session that already had
one (the request holds an earlier answer: in this process or, resumed with
``--session``, in the log) goes to that turn first. A call past the end of the
script, a turn whose ``expect`` does not hold, or a ``choose`` no alternative
of which fits, fails loudly with ModelError (kind SCRIPT). Every call is
recorded in ``calls``.
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
    MessageDone,
    ModelError,
    ModelErrorKind,
    ModelEvent,
    ModelInput,
    StopReason,
    TextDelta,
    ThinkingDelta,
)
from agentls.contracts.usage import Usage
from agentls.contracts.values import value
from agentls.providers.base import ProviderBase

BUILTIN_SCRIPTS = {"demo": "data/demo/script.json"}
_STOP_REASONS = {"end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn"}


@value
class RecordedCall:
    """What the model was shown on one call (cheap: no copy of the history)."""

    index: int
    message_count: int
    tool_names: tuple[str, ...]
    last_message: Message | None


class ScriptedProvider(ProviderBase):
    def __init__(
        self,
        turns: Sequence[dict[str, Any]],
        *,
        name: str = "script",
        later_asks: str | None = None,
        origin: str = "the script",
    ) -> None:
        self._turns = list(turns)
        self._ids = _ids_of(self._turns, later_asks, origin)
        self._later_asks = None if later_asks is None else self._ids[later_asks]
        self._name = name
        self._position = 0  # the turn the next call plays
        self.calls: list[RecordedCall] = []
        self._last_tools: object = None
        self._last_names: tuple[str, ...] = ()

    @classmethod
    def from_file(cls, spec: str) -> ScriptedProvider:
        """``spec`` is a path to a JSON script, or the name of a bundled one (``demo``)."""
        if spec in BUILTIN_SCRIPTS:
            text = resources.files("agentls").joinpath(BUILTIN_SCRIPTS[spec]).read_text("utf-8")
            return cls._of(json.loads(text), spec, name=spec)
        path = Path(spec).expanduser()
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"scripted model: no script file at {path}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"scripted model: cannot read {path}: {exc}") from None
        return cls._of(data, str(path), name=path.stem)

    @classmethod
    def _of(cls, data: Any, origin: str, *, name: str) -> ScriptedProvider:
        turns = _turns_from(data, origin)
        later = data.get("laterAsks")
        if later is not None and not isinstance(later, str):
            raise ConfigError(f"scripted model: {origin}: laterAsks must name a turn's id")
        return cls(turns, name=name, later_asks=later, origin=origin)

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
        if self._later_asks is not None and _starts_a_later_ask(messages):
            self._position = self._later_asks
        if self._position >= len(self._turns):
            raise ModelError(
                f"scripted model: call {index + 1} was not expected "
                f"(the script has {len(self._turns)} turns)",
                kind=ModelErrorKind.SCRIPT,
            )
        turn = _chosen(self._turns[self._position], request, index)
        following = turn.get("next")
        self._position = self._position + 1 if following is None else self._ids[following]
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
        for played in _alternatives(turn, number, origin):
            _check_turn(played, number)
    return turns


def _check_turn(turn: dict[str, Any], number: int) -> None:
    for call in turn.get("toolCalls", []):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ConfigError(f"scripted model: turn {number} has a tool call without a name")
    stop = turn.get("stopReason")
    if stop is not None and stop not in _STOP_REASONS:
        raise ConfigError(f"scripted model: turn {number} has unknown stopReason {stop!r}")


def _alternatives(turn: dict[str, Any], number: int, origin: str) -> list[dict[str, Any]]:
    """The turns a turn may play: its ``choose`` alternatives, or itself."""
    if "choose" not in turn:
        return [turn]
    options = turn["choose"]
    if (
        not isinstance(options, list)
        or not options
        or not all(isinstance(o, dict) for o in options)
    ):
        raise ConfigError(
            f"scripted model: {origin}: turn {number}'s choose must be a list of turns"
        )
    return options


def _ids_of(turns: list[dict[str, Any]], later_asks: str | None, origin: str) -> dict[str, int]:
    """Each turn's ``id`` by position; every ``next`` and ``laterAsks`` must name one."""
    ids: dict[str, int] = {}
    for position, turn in enumerate(turns):
        name = turn.get("id")
        if name is None:
            continue
        if not isinstance(name, str) or name in ids:
            said = "repeats" if isinstance(name, str) else "has a non-text"
            raise ConfigError(f"scripted model: {origin}: turn {position + 1} {said} id {name!r}")
        ids[name] = position
    named = [(later_asks, "laterAsks")] if later_asks is not None else []
    for position, turn in enumerate(turns):
        for played in _alternatives(turn, position + 1, origin):
            if "next" in played:
                named.append((played["next"], f"turn {position + 1}'s next"))
    for name, where in named:
        if not isinstance(name, str) or name not in ids:
            raise ConfigError(f"scripted model: {origin}: {where} names no turn ({name!r})")
    return ids


def _chosen(turn: dict[str, Any], request: ModelInput, index: int) -> dict[str, Any]:
    """The turn itself, or its first alternative whose ``when`` holds."""
    if "choose" not in turn:
        return turn
    misses = []
    for number, option in enumerate(turn["choose"], 1):
        problems = _unmet(option.get("when"), request)
        if not problems:
            return dict(option)
        misses.append(f"alternative {number}: " + "; ".join(problems))
    raise ModelError(
        f"scripted model: call {index + 1} did not match the script: no alternative fits ("
        + " | ".join(misses)
        + ")",
        kind=ModelErrorKind.SCRIPT,
    )


def _starts_a_later_ask(messages: Sequence[Message]) -> bool:
    """The person's new prompt, after an earlier answer in the same session."""
    if not messages or messages[-1].role != "user":
        return False
    if any(isinstance(b, ToolResultBlock) for b in messages[-1].content):
        return False
    return any(m.role == "assistant" for m in messages[:-1])


def _check_expectations(expect: Any, request: ModelInput, index: int) -> None:
    problems = _unmet(expect, request)
    if problems:
        raise ModelError(
            f"scripted model: call {index + 1} did not match the script: " + "; ".join(problems),
            kind=ModelErrorKind.SCRIPT,
        )


def _unmet(expect: Any, request: ModelInput) -> list[str]:
    """What of ``expect`` (or an alternative's ``when``) the request does not hold."""
    if not expect:
        return []
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
    results = _last_tool_results(request.messages)
    wanted = expect.get("lastToolResultContains")
    if wanted is not None and not any(wanted in r.content for r in results):
        seen = " | ".join(r.content[:200] for r in results) or "no tool result"
        problems.append(f"the last tool result should contain {wanted!r}; got: {seen}")
    failed = expect.get("lastToolResultIsError")
    if failed is not None and any(r.is_error for r in results) is not bool(failed):
        said = "an error" if failed else "no error"
        problems.append(f"the last tool result should be {said}")
    anywhere = expect.get("lastMessageContains")
    if anywhere is not None:
        last = request.messages[-1] if request.messages else None
        seen = _all_text(last) if last is not None else ""
        if anywhere not in seen:
            problems.append(f"the last message should contain {anywhere!r}; got: {seen[:300]}")
    return problems


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
        blocks.append(block)
    text = turn.get("text")
    if text:
        text_block = TextBlock(str(text))
        position = len(blocks)
        events += [TextDelta(position, chunk) for chunk in _chunks(text_block.text)]
        blocks.append(text_block)
    calls = turn.get("toolCalls")
    for number, call in enumerate(calls or ()):
        given = call.get("input")
        use = ToolUseBlock(
            str(call.get("id") or f"toolu_scripted_{index}_{number}"),
            str(call["name"]),
            {} if given is None else dict(given),
        )
        blocks.append(use)  # the call reaches the loop whole, in MessageDone
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
