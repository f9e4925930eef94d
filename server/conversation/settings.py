"""Settings shared by every face: flags, LSP settings and settings files."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from agentls.context.policy import (
    DEFAULT_THRESHOLD,
    DEFAULT_VERBATIM_TURNS,
    ContextPolicy,
    context_window,
)
from agentls.contracts.errors import ConfigError
from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.loop.budget import Budget
from agentls.mcp.config import SERVER_NAME, McpServerConfig, for_log
from agentls.permissions.modes import Mode
from agentls.permissions.rules import RuleSet
from agentls.workspace.paths import DEFAULT_SECRET_PATTERNS
from agentls.workspace.sandbox import SandboxSettings

DEFAULT_MODEL = "anthropic:claude-sonnet-4-5"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Settings(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    model: str = DEFAULT_MODEL
    # For openai:MODEL, an OpenAI-compatible server (Ollama, llama.cpp, LM Studio, vLLM).
    base_url: str | None = None
    # Sampling and tool choice for the model (small local models need a firm hand):
    # toolChoice is "auto", "required", "none" or a tool name to force that tool.
    temperature: float | None = Field(default=None, ge=0, le=2)
    tool_choice: str = "auto"
    # Snapshots before and after each turn that may change files (for undo).
    checkpoints: bool = True
    checkpoint_keep: int = Field(default=200, ge=1)
    checkpoint_max_age_days: float = Field(default=30.0, gt=0)
    mode: Mode = Mode.DEFAULT
    max_turns: int | None = Field(default=50, ge=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_cost_usd: float | None = Field(default=None, gt=0)
    timeout_seconds: float | None = Field(default=None, gt=0)
    command_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    max_output_tokens: int = Field(default=8192, ge=1)
    # How long an editor prompt (approval, edit review) waits before it counts as Deny.
    approval_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    permissions: dict[str, Any] = Field(default_factory=dict)
    # Commands run under bubblewrap when it is there ("auto"), or never ("off").
    sandbox: Literal["auto", "off"] = "auto"
    sandbox_network: bool = False
    sandbox_writable: list[str] = Field(default_factory=list)
    # Variables commands get besides the pass-list (PATH, HOME, LANG, LC_*, TERM, TZ, ...).
    sandbox_env: dict[str, str] = Field(default_factory=dict)
    # Extra secret-file globs ("!glob" exempts); added to the built-in list.
    secret_files: list[str] = Field(default_factory=list)
    # Where "Always allow" keeps its rule: this session, or the workspace settings file.
    always_allow_scope: Literal["session", "workspace"] = "session"
    # The context layer: the model's window in tokens (default: the model table, or a
    # small default for models it does not know); compaction of the older history above
    # this share of it; turns always kept verbatim; tokens of old bulky tool results kept
    # before they are elided (default: a fifth of the window).
    context_window: int | None = Field(default=None, ge=1024)
    compaction: bool = True
    compaction_threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0.3, le=0.95)
    verbatim_turns: int = Field(default=DEFAULT_VERBATIM_TURNS, ge=1, le=100)
    tool_result_budget: int | None = Field(default=None, ge=0)
    # MCP servers whose tools the model may use (risk "external"): {"name": {"command",
    # "args", "env"}} for stdio, {"name": {"url", "headers"}} for streamable HTTP.
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    # Language servers agentls runs for itself, by name over the defaults found on PATH
    # (null turns one off); problems after edits (afterEdits, severity, settleSeconds).
    language_servers: dict[str, LanguageServerConfig | None] = Field(default_factory=dict)
    problems: ProblemsSettings = Field(default_factory=ProblemsSettings)

    @field_validator("mcp_servers")
    @classmethod
    def _server_names(cls, value: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in value:
            if not SERVER_NAME.match(name):
                raise ValueError(f"server name {name!r}: use letters, digits, _ and -, at most 40")
        return value

    @field_validator("sandbox_env")
    @classmethod
    def _env_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if not _ENV_NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not an environment variable name")
        return value

    @field_validator("model")
    @classmethod
    def _model_has_provider(cls, value: str) -> str:
        provider, sep, name = value.partition(":")
        if not sep or not provider or not name:
            raise ValueError("write the model as PROVIDER:NAME, e.g. anthropic:claude-sonnet-4-5")
        return value

    @field_validator("permissions")
    @classmethod
    def _rules_parse(cls, value: dict[str, Any]) -> dict[str, Any]:
        RuleSet.from_settings(value)
        return value

    def rules(self) -> RuleSet:
        return RuleSet.from_settings(self.permissions)

    def sandbox_settings(self) -> SandboxSettings:
        return SandboxSettings(
            self.sandbox == "auto",
            self.sandbox_network,
            tuple(self.sandbox_writable),
            tuple(self.sandbox_env.items()),
            self.secret_patterns(),
        )

    def secret_patterns(self) -> tuple[str, ...]:
        return (*DEFAULT_SECRET_PATTERNS, *self.secret_files)

    def budget(self) -> Budget:
        return Budget(self.max_turns, self.max_tokens, self.max_cost_usd, self.timeout_seconds)

    def context_policy(self, model_id: str) -> ContextPolicy:
        return ContextPolicy(
            window=context_window(model_id, self.context_window),
            max_output_tokens=self.max_output_tokens,
            threshold=self.compaction_threshold,
            verbatim_turns=self.verbatim_turns,
            tool_result_budget=self.tool_result_budget,
            compaction=self.compaction,
        )

    def to_log(self) -> dict[str, Any]:
        logged = self.model_dump(mode="json", by_alias=True)
        logged["mcpServers"] = {k: for_log(v) for k, v in logged["mcpServers"].items()}
        return logged


def load_settings(data: Any, *, base: Settings | None = None) -> Settings:
    """Validate settings (camelCase keys) over ``base``; ConfigError names every problem."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("settings must be an object")
    merged = base.model_dump(mode="json", by_alias=True) if base else {}
    for key, value in data.items():
        if value is None:
            continue
        if key == "permissions" and isinstance(value, dict):
            value = merge_permissions(merged.get("permissions") or {}, value)
        if key == "mcpServers" and isinstance(value, dict):  # servers add up, by name
            value = {**(merged.get("mcpServers") or {}), **value}
        merged[key] = value
    try:
        # Strict: the string "true" is no boolean and "5" no number. Through JSON so that
        # enums and literals still take their string values.
        return Settings.model_validate_json(json.dumps(merged), strict=True)
    except (TypeError, ValueError) as exc:
        if not isinstance(exc, ValidationError):
            raise ConfigError(f"bad settings: not JSON data ({exc})") from None
        problems = []
        for item in exc.errors(include_url=False):
            where = ".".join(str(p) for p in item["loc"]) or "settings"
            problems.append(f"{where}: {item['msg']}")
        raise ConfigError("bad settings: " + "; ".join(problems)) from None


def merge_permissions(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Rule lists add up across settings sources: a later source never drops a deny."""
    merged = dict(base)
    for key, value in more.items():
        if isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = [*merged[key], *value]
        else:
            merged[key] = value
    return merged
