"""Settings shared by every face, grouped by what they govern.

People write one flat object (settings_wire.py); `Settings` is what the code
reads, built from it once per load: the model, the limits, the gate (its rules
parsed here, not on every call), the context, the sandbox, checkpoints, the
servers agentls runs, and how a face asks. Layering the sources is in
settings_layers.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Literal, cast

from pydantic import ValidationError

from agentls.context.policy import ContextPolicy, choose_window
from agentls.contracts.errors import ConfigError
from agentls.contracts.reasoning import ReasoningLevel
from agentls.contracts.window import ServerWindow
from agentls.conversation.settings_managed import ManagedPolicy, ManagedState
from agentls.conversation.settings_wire import DEFAULT_MODEL, FACE_KEYS, WireSettings
from agentls.hooks.config import HookSet
from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.loop.budget import Budget
from agentls.mcp.config import HIDDEN, McpServerConfig, for_log
from agentls.permissions.modes import Mode
from agentls.permissions.rules import RuleSet
from agentls.telemetry.config import TelemetryConfig
from agentls.workspace.paths import DEFAULT_SECRET_PATTERNS
from agentls.workspace.redaction import mask_secrets
from agentls.workspace.sandbox import SandboxSettings

__all__ = [
    "DEFAULT_MODEL",
    "Settings",
    "load_settings",
    "masked_data",
    "merge_hooks",
    "merge_permissions",
    "with_managed",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelSettings:
    id: str  # PROVIDER:NAME
    base_url: str | None
    temperature: float | None
    tool_choice: str
    max_output_tokens: int
    reasoning: ReasoningLevel | None  # None: the model's own default


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    max_turns: int | None
    max_tokens: int | None
    max_cost_usd: float | None
    timeout_seconds: float | None
    command_timeout_seconds: float
    approval_timeout_seconds: float  # an editor prompt left unanswered counts as Deny

    def budget(self) -> Budget:
        return Budget(
            max_turns=self.max_turns,
            max_tokens=self.max_tokens,
            max_cost_usd=self.max_cost_usd,
            timeout_seconds=self.timeout_seconds,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionSettings:
    mode: Mode
    rules: RuleSet
    always_allow_scope: Literal["session", "workspace"]
    secret_patterns: tuple[str, ...]  # the built-in list, then secretFiles


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextSettings:
    window: int | None  # None: the model table's
    compaction: bool
    threshold: float
    verbatim_turns: int
    tool_result_budget: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckpointSettings:
    enabled: bool = True
    keep: int = 200
    max_age_days: float = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class FaceSettings:
    """How a face asks its person (the LSP face reads it; others ask their own way)."""

    approvals_via: Literal["auto", "prompt", "codeAction"] = "auto"
    review_via: Literal["auto", "editor", "prompt", "codeAction"] = "auto"


@dataclass(frozen=True)
class Settings:
    """Built from the wire form; ``Settings()`` is the defaults. ``managed``: the machine's
    managed policy, already laid over ``wire``, and what it overrode."""

    wire: WireSettings = field(default_factory=WireSettings)
    managed: ManagedState | None = None
    model: ModelSettings = field(init=False)
    limits: Limits = field(init=False)
    permissions: PermissionSettings = field(init=False)
    context: ContextSettings = field(init=False)
    sandbox: SandboxSettings = field(init=False)
    checkpoints: CheckpointSettings = field(init=False)
    mcp_servers: dict[str, McpServerConfig] = field(init=False)
    language_servers: dict[str, LanguageServerConfig | None] = field(init=False)
    problems: ProblemsSettings = field(init=False)
    face: FaceSettings = field(init=False)
    telemetry: TelemetryConfig = field(init=False)
    hooks: HookSet = field(init=False)

    def __post_init__(self) -> None:
        w = self.wire
        secrets = (*DEFAULT_SECRET_PATTERNS, *w.secret_files)
        rules = RuleSet.from_settings(w.permissions)
        parts: dict[str, Any] = {
            "model": ModelSettings(
                id=w.model,
                base_url=w.base_url,
                temperature=w.temperature,
                tool_choice=w.tool_choice,
                max_output_tokens=w.max_output_tokens,
                reasoning=w.reasoning,
            ),
            "limits": Limits(
                max_turns=w.max_turns,
                max_tokens=w.max_tokens,
                max_cost_usd=w.max_cost_usd,
                timeout_seconds=w.timeout_seconds,
                command_timeout_seconds=w.command_timeout_seconds,
                approval_timeout_seconds=w.approval_timeout_seconds,
            ),
            "permissions": PermissionSettings(
                mode=w.mode,
                rules=rules,
                always_allow_scope=w.always_allow_scope,
                secret_patterns=secrets,
            ),
            "context": ContextSettings(
                window=w.context_window,
                compaction=w.compaction,
                threshold=w.compaction_threshold,
                verbatim_turns=w.verbatim_turns,
                tool_result_budget=w.tool_result_budget,
            ),
            "sandbox": SandboxSettings(
                enabled=w.sandbox != "off",
                required=w.sandbox == "required",
                network=w.sandbox_network,
                writable=tuple(w.sandbox_writable),
                env=tuple(w.sandbox_env.items()),
                secret_patterns=secrets,
                protected_patterns=tuple(rules.protected),
                max_processes=w.max_background_processes,
            ),
            "checkpoints": CheckpointSettings(
                enabled=w.checkpoints,
                keep=w.checkpoint_keep,
                max_age_days=w.checkpoint_max_age_days,
            ),
            "mcp_servers": w.mcp_servers,
            "language_servers": w.language_servers,
            "problems": w.problems,
            "face": FaceSettings(approvals_via=w.approvals_via, review_via=w.review_via),
            "telemetry": TelemetryConfig(
                enabled=w.telemetry.enabled,
                log_content=w.telemetry.log_content,
                endpoint=w.telemetry.endpoint,
                protocol=w.telemetry.protocol,
                headers=tuple(w.telemetry.headers.items()),
            ),
            "hooks": self._hook_set(),
        }
        for name, value in parts.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    def _hook_set(self) -> HookSet:
        """The settings' hooks, unless turned off, and the managed settings', always."""
        policy = self.managed.policy.wire if self.managed is not None else None
        managed_only = policy is not None and policy.allow_managed_hooks_only
        return HookSet.of(
            self.wire.hooks,
            policy.hooks if policy is not None else None,
            settings_off=self.wire.disable_all_hooks or managed_only,
        )

    # What depends on the settings alone is worked out once per Settings (they are frozen;
    # a change of settings is a new Settings): sessions open and runs start with it.

    def context_policy(self, model_id: str, server: ServerWindow | None = None) -> ContextPolicy:
        """``server``: what the model's server said of its window, if it was asked."""
        policy = self._policies.get((model_id, server))
        if policy is None:
            window, source = choose_window(model_id, self.context.window, server)
            policy = self._policies[model_id, server] = ContextPolicy(
                window=window,
                window_source=source,
                max_output_tokens=self.model.max_output_tokens,
                threshold=self.context.threshold,
                verbatim_turns=self.context.verbatim_turns,
                tool_result_budget=self.context.tool_result_budget,
                compaction=self.context.compaction,
            )
        return policy

    @cached_property
    def _policies(self) -> dict[tuple[str, ServerWindow | None], ContextPolicy]:  # frozen
        return {}

    def to_wire(self) -> dict[str, Any]:
        """The settings as a person would write them (camelCase keys), every key set."""
        return self.wire.model_dump(mode="json", by_alias=True)

    def to_log(self) -> dict[str, Any]:
        """What a run logs: the wire form without face keys and without secrets (one dict
        per Settings, logged by every run: read it, do not change it). `sandboxEnv` values
        and MCP `env` and `headers` values are hidden outright (their names kept); every
        other string is masked as tool output is (a key with a known prefix, a URL's
        password, `token=…`), wherever it is. A masked value still loads, so replay
        rebuilds the run; a rule that held a secret is replayed in its masked form."""
        return self._logged

    @cached_property
    def _logged(self) -> dict[str, Any]:
        logged = {k: v for k, v in self.to_wire().items() if k not in FACE_KEYS}
        logged["sandboxEnv"] = dict.fromkeys(logged["sandboxEnv"], HIDDEN)
        logged["mcpServers"] = {k: for_log(v) for k, v in logged["mcpServers"].items()}
        telemetry = logged["telemetry"]
        logged["telemetry"] = {**telemetry, "headers": dict.fromkeys(telemetry["headers"], HIDDEN)}
        return cast(dict[str, Any], masked_data(logged))

    @cached_property
    def budget(self) -> Budget:
        """The run budget (frozen) the limits set."""
        return self.limits.budget()


def masked_data(data: Any) -> Any:
    """JSON data with every string in it (keys too) masked as tool output is."""
    if isinstance(data, str):
        return mask_secrets(data)[0]
    if isinstance(data, dict):
        return {masked_data(k): masked_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [masked_data(v) for v in data]
    return data


def load_settings(data: Any, *, base: Settings | None = None) -> Settings:
    """Validate one layer (camelCase keys) over ``base``; ConfigError names every problem."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("settings must be an object")
    merged = base.to_wire() if base else {}
    for key, value in data.items():
        if value is None:
            continue
        if key == "permissions" and isinstance(value, dict):
            value = merge_permissions(merged.get("permissions") or {}, value)
        if key in ("mcpServers", "telemetry") and isinstance(value, dict):
            value = {**(merged.get(key) or {}), **value}  # servers by name, telemetry by key
        if key == "hooks" and isinstance(value, dict):
            value = merge_hooks(merged.get(key) or {}, value)
        merged[key] = value
    settings = _settings_of(_json_text(merged))
    if base is not None and base.managed is not None:  # nothing layered over it loosens it
        settings = with_managed(settings, base.managed.policy, earlier=base.managed.overrides)
    return settings


def with_managed(
    settings: Settings, policy: ManagedPolicy, *, earlier: tuple[str, ...] = ()
) -> Settings:
    """``settings`` with the managed policy laid over them (ConfigError: a model it does not
    allow); ``earlier``: what it overrode already, in the layers below these."""
    wire, overrides = policy.apply(settings.to_wire(), earlier=earlier)
    return _settings_of(_json_text(wire), ManagedState(policy, overrides))


def _json_text(data: dict[str, Any]) -> str:
    try:
        # Through JSON so that enums and literals still take their string values.
        return json.dumps(data)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad settings: not JSON data ({exc})") from None


@lru_cache(maxsize=32)
def _settings_of(text: str, managed: ManagedState | None = None) -> Settings:
    """The Settings of one JSON text: the same settings loaded again (a face that reads
    them per session or per refresh) are the same frozen Settings, with what was worked
    out from them. Errors are not kept: they are raised again."""
    try:
        # Strict: the string "true" is no boolean and "5" no number.
        wire = WireSettings.model_validate_json(text, strict=True)
    except (TypeError, ValueError) as exc:
        if not isinstance(exc, ValidationError):
            raise ConfigError(f"bad settings: not JSON data ({exc})") from None
        problems = []
        for item in exc.errors(include_url=False):
            where = ".".join(str(p) for p in item["loc"]) or "settings"
            problems.append(f"{where}: {item['msg']}")
        raise ConfigError("bad settings: " + "; ".join(problems)) from None
    return Settings(wire, managed)


def merge_hooks(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Hooks add up across settings sources, event by event: a later source never drops
    an earlier one's."""
    merged = dict(base)
    for event, matchers in more.items():
        earlier = merged.get(event)
        if isinstance(matchers, list) and isinstance(earlier, list):
            merged[event] = [*earlier, *matchers]
        else:
            merged[event] = matchers
    return merged


def merge_permissions(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Rule lists add up across settings sources: a later source never drops a deny."""
    merged = dict(base)
    for key, value in more.items():
        if isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = [*merged[key], *value]
        else:
            merged[key] = value
    return merged
