"""Turning ``PROVIDER:NAME`` into a provider, with credentials checked up front."""

from __future__ import annotations

from agentls.contracts.errors import ConfigError
from agentls.providers.base import ModelProvider

PROVIDERS = ("anthropic", "scripted")


def make_provider(spec: str) -> ModelProvider:
    provider, _, name = spec.partition(":")
    if provider == "anthropic":
        # Imported here: the SDK is heavy and a scripted run never needs it.
        from agentls.providers.anthropic import AnthropicProvider, require_api_key

        require_api_key()  # fail before any work; the SDK then reads the variable itself
        return AnthropicProvider(name)
    if provider == "scripted":
        from agentls.providers.scripted import ScriptedProvider

        return ScriptedProvider.from_file(name)
    raise ConfigError(
        f"unknown model provider {provider!r} in {spec!r}; use one of: "
        + ", ".join(f"{p}:NAME" for p in PROVIDERS)
    )
