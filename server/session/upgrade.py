"""Lines of schema version 1 in today's shape, so every reader folds one kind of event.

Version 1 wrote the same kinds and envelope; only a few nested keys were
snake_case (a usage's token counts, a tool result's `tool_use_id` and
`is_error`), and the oldest logs had no `mode` on `run_started`.
"""

from __future__ import annotations

from typing import Any

from agentls.session import events as ev

_MESSAGE_KINDS = frozenset({ev.USER_MESSAGE, ev.MODEL_OUTPUT, ev.TOOL_RESULTS})
_TOOL_RESULT_KEYS = {"tool_use_id": "toolUseId", "is_error": "isError"}
_USAGE_KEYS = {
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "cache_read_tokens": "cacheReadTokens",
    "cache_write_tokens": "cacheWriteTokens",
}


def upgrade_v1(event: dict[str, Any]) -> dict[str, Any]:
    """A version 1 event as version 2 would have written it (``event`` is changed in place)."""
    kind = event.get("kind")
    if kind in _MESSAGE_KINDS:
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                _rename(block, _TOOL_RESULT_KEYS)
    elif kind == ev.USAGE and isinstance(event.get("usage"), dict):
        _rename(event["usage"], _USAGE_KEYS)
    elif kind == ev.RUN_STARTED and not isinstance(event.get("mode"), str):
        settings = event.get("settings")
        mode = settings.get("mode") if isinstance(settings, dict) else None
        event["mode"] = mode if isinstance(mode, str) else None
    event["v"] = ev.SCHEMA_VERSION
    return event


def _rename(data: dict[str, Any], names: dict[str, str]) -> None:
    for old, new in names.items():
        if old in data:
            data[new] = data.pop(old)
