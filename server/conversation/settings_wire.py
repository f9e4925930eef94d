"""The settings as people write them: one flat object of camelCase keys.

The same keys come from settings files, `initializationOptions`,
`workspace/configuration` and VS Code's settings, so this shape is a public
contract (docs/protocol.md's settings table); the code reads the nested `Settings`
built from it (settings.py).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from agentls.context.policy import DEFAULT_THRESHOLD, DEFAULT_VERBATIM_TURNS
from agentls.contracts.reasoning import ReasoningLevel
from agentls.hooks.config import HooksWire
from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.mcp.config import SERVER_NAME, McpServerConfig
from agentls.memory.instructions import InstructionsWire
from agentls.permissions.modes import Mode
from agentls.permissions.rules import RuleSet

DEFAULT_MODEL = "anthropic:claude-sonnet-4-5"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Keys that say only how a face asks its person (the editor's prompts): not part
# of a run, so not logged with it.
FACE_KEYS = frozenset({"approvalsVia", "reviewVia"})


class TelemetryWire(BaseModel):
    """`telemetry`: where runs are exported over OTLP. What is unset here comes from the
    standard OTEL_EXPORTER_OTLP_* variables."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    enabled: bool = False
    # Prompt text, tool input and output in the records (masked as tool output is).
    log_content: bool = False
    endpoint: str | None = Field(default=None, min_length=1)  # the collector's base URL
    protocol: Literal["http/protobuf", "grpc"] | None = None
    headers: dict[str, str] = Field(default_factory=dict)  # never logged: values hidden


class WireSettings(BaseModel):
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
    # How hard the model thinks: "off", "low", "medium", "high"; unset, the model's own
    # default (the model table's, else off). What each model takes: docs/reasoning-and-images.md.
    reasoning: ReasoningLevel | None = None
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
    # How many background commands (run_command with background) a session runs at once.
    max_background_processes: int = Field(default=8, ge=0, le=64)
    max_output_tokens: int = Field(default=8192, ge=1)
    # How long an editor prompt (approval, edit review) waits before it counts as Deny.
    approval_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    permissions: dict[str, Any] = Field(default_factory=dict)
    # Commands run under bubblewrap when it is there ("auto"), only under it ("required":
    # where it cannot run, no command runs), or never ("off").
    sandbox: Literal["auto", "required", "off"] = "auto"
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
    # Who answers problems, definitions, references, symbols and renames: "auto" (the
    # editor where it answers them, else agentls's own servers), "editor", "agentls".
    language_intelligence: Literal["auto", "editor", "agentls"] = "auto"
    # How an editor asks (FACE_KEYS): "auto" (a prompt, or code actions once the
    # editor shows it cannot prompt), "prompt", "codeAction"; edit reviews may also
    # use the editor's own preview ("editor").
    approvals_via: Literal["auto", "prompt", "codeAction"] = "auto"
    review_via: Literal["auto", "editor", "prompt", "codeAction"] = "auto"
    # OpenTelemetry export of runs (off unless enabled): spans, metrics and log records.
    telemetry: TelemetryWire = Field(default_factory=TelemetryWire)
    # The project's instruction files (AGENTS.md ...) in the system prompt.
    instructions: InstructionsWire = Field(default_factory=InstructionsWire)
    # Commands run at a session's events, in Claude Code's shape (hooks/config.py); the
    # layers' hooks add up. disableAllHooks turns them off, but never the managed ones.
    hooks: HooksWire = Field(default_factory=dict)
    disable_all_hooks: bool = False

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
        RuleSet.from_settings(value)  # a bad rule is told at load, naming the key
        return value
