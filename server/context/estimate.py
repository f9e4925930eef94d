"""Cheap token estimates, calibrated by what the provider reports.

A message's estimate is computed once, when it joins the history, and cached
by the projector; only the calibration factor changes afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import orjson

from agentls.contracts.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
)
from agentls.contracts.model_io import ToolSpec
from agentls.contracts.usage import Usage

CHARS_PER_TOKEN = 4
_MESSAGE_OVERHEAD = 4  # role and block framing
_TOOL_USE_OVERHEAD = 16
# One sample never moves the factor past these: a provider whose counts look
# nothing like the text (the scripted model's fixed figures) cannot swing it far.
_MIN_FACTOR, _MAX_FACTOR = 0.5, 2.5
_MAX_OVERFLOW_FACTOR = 4.0
# An image costs about its pixels / 750 in tokens, up to the size the APIs scale it to
# (about 1.15 megapixels): figured from its logged size alone, so a replay counts the same.
_IMAGE_PIXELS_PER_TOKEN = 750
_IMAGE_MAX_TOKENS = 1600
_TOO_LONG = re.compile(r"(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)")
# How servers say how long the prompt was: Anthropic ("210,000 tokens > 200,000 maximum"),
# OpenAI ("your messages resulted in 130,500 tokens"), llama.cpp ("n_prompt_tokens": 9000).
_PROMPT_LENGTH = (
    _TOO_LONG,
    re.compile(r"resulted in (\d[\d,]*) tokens"),
    re.compile(r"n_prompt_tokens\W+(\d[\d,]*)"),
)
# ...and how long it may be: Anthropic ("> 200,000 maximum"), OpenAI ("maximum context
# length is 128000 tokens"), llama.cpp ("n_ctx": 8192).
_WINDOW = (
    re.compile(r">\s*(\d[\d,]*)\s*maximum"),
    re.compile(r"maximum context length is (\d[\d,]*)"),
    re.compile(r"\bn_ctx\W+(\d[\d,]*)"),
)


def _first_number(patterns: Sequence[re.Pattern[str]], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def window_in(error_text: str) -> int | None:
    """The model's window, where a too-long error names it."""
    return _first_number(_WINDOW, error_text)


def block_chars(block: ContentBlock) -> int:
    if isinstance(block, TextBlock):
        return len(block.text)
    if isinstance(block, ToolResultBlock):
        return len(block.content)
    if isinstance(block, ThinkingBlock):
        return len(block.thinking) + len(block.redacted_data or "")
    if isinstance(block, ImageBlock):
        tokens = -(-block.width * block.height // _IMAGE_PIXELS_PER_TOKEN)
        return min(max(tokens, 1), _IMAGE_MAX_TOKENS) * CHARS_PER_TOKEN
    return _TOOL_USE_OVERHEAD * CHARS_PER_TOKEN + len(orjson.dumps(block.input))


def message_tokens(message: Message) -> int:
    chars = 0
    for block in message.content:
        chars += block_chars(block)
    return chars // CHARS_PER_TOKEN + _MESSAGE_OVERHEAD


def measure(message: Message, bulky_chars: int) -> tuple[int, int]:
    """(tokens, tokens in tool results longer than ``bulky_chars``), in one pass."""
    chars = bulky = 0
    for block in message.content:
        size = block_chars(block)
        chars += size
        if size > bulky_chars and isinstance(block, ToolResultBlock):
            bulky += size // CHARS_PER_TOKEN
    return chars // CHARS_PER_TOKEN + _MESSAGE_OVERHEAD, bulky


def tools_tokens(tools: Sequence[ToolSpec]) -> int:
    chars = sum(len(t.name) + len(t.description) + len(orjson.dumps(t.input_schema)) for t in tools)
    return chars // CHARS_PER_TOKEN + _TOOL_USE_OVERHEAD * len(tools)


class Calibration:
    """Estimated tokens times a factor learnt from the input tokens actually billed."""

    def __init__(self) -> None:
        self.factor = 1.0
        self._samples = 0

    def apply(self, raw: int) -> int:
        return int(raw * self.factor)

    def observe(self, raw: int, usage: Usage) -> None:
        reported = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        if raw <= 0 or reported <= 0:
            return
        ratio = reported / raw
        if not _MIN_FACTOR <= ratio <= _MAX_FACTOR:
            ratio = _MIN_FACTOR if ratio < _MIN_FACTOR else _MAX_FACTOR
        # A running mean that favours recent calls: content mixes drift in a session.
        self.factor = ratio if self._samples == 0 else (self.factor + ratio) / 2
        self._samples += 1

    def overflowed(self, raw: int, error_text: str, window: int) -> None:
        """The API said the prompt was too long: the estimate was low, by at least this much."""
        if raw <= 0:
            return
        actual = _first_number(_PROMPT_LENGTH, error_text) or int(window * 1.05)
        wanted = min(actual / raw, _MAX_OVERFLOW_FACTOR)
        self.factor = max(self.factor, wanted)
