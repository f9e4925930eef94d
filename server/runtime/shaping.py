"""Turning tool outcomes into bounded observations the model can read."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from agentls.contracts.tooling import ErrorCode, Observation, ToolIntent
from agentls.workspace.redaction import mask_secrets


def bound(text: str, limit: int) -> tuple[str, int]:
    """Keep the head and the tail of long text; return it and how much was cut."""
    if len(text) <= limit:
        return text, 0
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return (
        f"{text[:head]}\n[... output cut: {cut:,} characters not shown ...]\n{text[-tail:]}",
        cut,
    )


def ok(intent: ToolIntent, text: str, limit: int, meta: dict[str, Any]) -> Observation:
    text, masked = mask_secrets(text)
    content, cut = bound(text, limit)
    if cut:
        meta = {**meta, "cutCharacters": cut}
    if masked:
        meta = {**meta, "maskedSecrets": masked}
    return Observation(call_id=intent.call_id, name=intent.name, content=content, meta=meta)


def error(
    intent: ToolIntent,
    code: ErrorCode,
    message: str,
    *,
    retryable: bool = False,
    limit: int = 30_000,
    meta: dict[str, Any] | None = None,
) -> Observation:
    content, _ = bound(mask_secrets(f"Error ({code.value}): {message}")[0], limit)
    return Observation(
        call_id=intent.call_id,
        name=intent.name,
        content=content,
        error=code,
        retryable=retryable,
        meta=meta or {},
    )


def describe_validation_error(tool: str, exc: ValidationError) -> str:
    problems = []
    for item in exc.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "input"
        problems.append(f"{where}: {item['msg']}")
    return f"invalid input for {tool}: " + "; ".join(problems)
