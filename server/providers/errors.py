"""Wording shared by the providers' error messages: one line, bounded, with the cause."""

from __future__ import annotations


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe(exc: Exception) -> str:
    text = one_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def error_field(body: object, field: str) -> str | None:
    """``body["error"][field]`` of an API error body, when it is a string."""
    error = body.get("error") if isinstance(body, dict) else None
    value = error.get(field) if isinstance(error, dict) else None
    return value if isinstance(value, str) else None
