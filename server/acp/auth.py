"""The login agentls offers in `initialize`: an API key from the environment, as a typed
`env_var` method naming the variable, so a client can ask for it and start agentls with it
set (codex-acp does the same)."""

from __future__ import annotations

from acp.schema import AuthEnvVar, AuthMethodAgent, EnvVarAuthMethod, TerminalAuthMethod

AUTH_METHOD = "agentls-api-key"

# The variable each provider reads its key from; a scripted model needs none.
_KEYS = {
    "anthropic": ("ANTHROPIC_API_KEY", "Anthropic API key"),
    "openai": ("OPENAI_API_KEY", "OpenAI API key"),
}


def auth_methods(model: str) -> list[EnvVarAuthMethod | TerminalAuthMethod | AuthMethodAgent]:
    """The login the model ``PROVIDER:NAME`` needs: its key's variable, or nothing."""
    provider = model.partition(":")[0]
    if provider not in _KEYS:
        return []
    variable, label = _KEYS[provider]
    local = " (a local server set in OPENAI_BASE_URL or baseUrl needs none)"
    return [
        EnvVarAuthMethod(
            type="env_var",
            id=AUTH_METHOD,
            name=f"Use {variable}",
            description=f"agentls reads {variable} from the environment it is started in"
            + (local if provider == "openai" else ""),
            vars=[AuthEnvVar(name=variable, label=label, secret=True)],
        )
    ]
