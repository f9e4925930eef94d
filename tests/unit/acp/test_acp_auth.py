"""The login initialize offers: a typed env_var method naming the model's key variable."""

from __future__ import annotations

from agentls.acp.auth import AUTH_METHOD, auth_methods


def test_the_method_names_the_variable_the_model_reads() -> None:
    (anthropic,) = auth_methods("anthropic:claude-sonnet-4-5")
    wire = anthropic.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert wire["type"] == "env_var" and wire["id"] == AUTH_METHOD
    assert wire["vars"] == [
        {"name": "ANTHROPIC_API_KEY", "label": "Anthropic API key", "secret": True,
         "optional": False}
    ]  # fmt: skip
    (openai,) = auth_methods("openai:gpt-4o")
    assert [v.name for v in openai.vars] == ["OPENAI_API_KEY"]
    assert "local server" in (openai.description or "")


def test_a_scripted_model_needs_no_login() -> None:
    assert auth_methods("scripted:demo") == []
