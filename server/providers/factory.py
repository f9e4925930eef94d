"""Turning ``PROVIDER:NAME`` into a provider, with credentials checked up front."""

from __future__ import annotations

from agentls.contracts.errors import ConfigError
from agentls.providers.base import ModelProvider

PROVIDERS = ("anthropic", "openai", "scripted")


def make_provider(
    spec: str,
    base_url: str | None = None,
    *,
    temperature: float | None = None,
    tool_choice: str = "auto",
) -> ModelProvider:
    """``base_url`` points the openai provider at a compatible server (Ollama, llama.cpp...)."""
    provider, _, name = spec.partition(":")
    # SDKs are imported here: they are heavy, and a run needs only one of them.
    if provider == "anthropic":
        from agentls.providers.anthropic import AnthropicProvider, require_api_key

        require_api_key()  # fail before any work; the SDK then reads the variable itself
        return AnthropicProvider(name, tool_choice=tool_choice)  # this API has no temperature
    if provider == "openai":
        from agentls.providers.openai_compat import OpenAIProvider, resolve_credentials

        key, url = resolve_credentials(base_url)
        return OpenAIProvider(
            name, api_key=key, base_url=url, temperature=temperature, tool_choice=tool_choice
        )
    if provider == "scripted":
        from agentls.providers.scripted import ScriptedProvider

        return ScriptedProvider.from_file(name)
    raise ConfigError(
        f"unknown model provider {provider!r} in {spec!r}; use one of: "
        + ", ".join(f"{p}:NAME" for p in PROVIDERS)
    )
