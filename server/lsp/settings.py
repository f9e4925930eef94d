"""Settings from initializationOptions and workspace/configuration (section `agentls`)."""

from __future__ import annotations

from typing import Any

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings, load_settings

SECTION = "agentls"


def section_of(raw: Any) -> Any:
    """Accept both ``{"agentls": {...}}`` and the bare ``{...}``."""
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        return raw[SECTION]
    return raw


def merge_settings(*layers: Any) -> Settings:
    """Later layers win; a bad layer raises ConfigError naming every problem."""
    settings = Settings()
    for layer in layers:
        layer = section_of(layer)
        if layer is None:
            continue
        if not isinstance(layer, dict):
            raise ConfigError(f"settings must be an object, got {type(layer).__name__}")
        settings = load_settings(layer, base=settings)
    return settings
