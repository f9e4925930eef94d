"""The managed settings file: a policy set by whoever runs the machine, above every layer.

`/etc/agentls/managed-settings.json` (or the file `AGENTLS_MANAGED_SETTINGS` names)
is laid over the settings last, after the person's flags, and it only ever
tightens: its deny and ask rules and protected paths are added to the others'
(nothing drops them), `sandbox: "required"` and `sandboxNetwork: false` hold
whatever a lower layer says, `permissions.disableBypassMode` turns bypass mode
into the default mode, limits are ceilings, `allowedModels` and
`allowedProviders` refuse any other model, `allowedMcpServers` and
`deniedMcpServers` leave servers out, and its `telemetry` keys win over the
person's. Its `hooks` always run, beside the others' (which
`allowManagedHooksOnly` turns off): no lower layer removes them, and
`disableAllHooks` below it turns off only the others'. What it changed of the
lower layers' settings is kept beside the settings (`ManagedState.overrides`) so
that every face can say so.

A file that is there but does not load (unreadable, not JSON, an unknown key, a
value of the wrong kind, a hook agentls cannot run) raises ConfigError: no ask
runs without the policy.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings_wire import TelemetryWire, WireSettings
from agentls.hooks.config import HooksWire
from agentls.permissions.rules import RuleSet, parse_rule
from agentls.workspace.control import managed_settings_path
from agentls.workspace.globs import match_text

_STRICT = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True)
# Limits the managed file caps: a lower layer may set less, never more.
CEILINGS = ("maxTurns", "maxTokens", "maxCostUsd", "timeoutSeconds", "commandTimeoutSeconds")
_NOT_ENFORCEABLE = {
    "allow": "a managed file only restricts: it holds no allow rules",
}


class ManagedPermissions(BaseModel):
    model_config = _STRICT

    deny: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    protected_paths: tuple[str, ...] = ()
    disable_bypass_mode: bool = False

    @field_validator("deny", "ask")
    @classmethod
    def _rules_parse(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for rule in value:
            parse_rule(rule)  # a bad rule is told at load, naming it
        return value

    @field_validator("protected_paths")
    @classmethod
    def _paths(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        RuleSet.from_settings({"protectedPaths": list(value)})
        return value


class ServerMatch(BaseModel):
    """An MCP server by its name, its command line or its URL (globs; all given must match)."""

    model_config = _STRICT

    name: str | None = Field(default=None, min_length=1)
    command: str | None = Field(default=None, min_length=1)
    url: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _something(self) -> ServerMatch:
        if self.name is None and self.command is None and self.url is None:
            raise ValueError("name a server by name, command or url")
        return self

    def matches(self, name: str, server: dict[str, Any]) -> bool:
        command = server.get("command")
        line = shlex.join([command, *server.get("args", ())]) if command else None
        url = server.get("url")
        return (
            (self.name is None or match_text(self.name, name))
            and (self.command is None or (line is not None and match_text(self.command, line)))
            and (self.url is None or (url is not None and match_text(self.url, url)))
        )


class ManagedWire(BaseModel):
    """The managed file's keys (camelCase, as in the settings files)."""

    model_config = _STRICT

    permissions: ManagedPermissions = Field(default_factory=ManagedPermissions)
    sandbox: Literal["required"] | None = None
    sandbox_network: Literal[False] | None = None
    secret_files: tuple[str, ...] = ()
    allowed_models: tuple[str, ...] | None = None  # globs over PROVIDER:NAME
    allowed_providers: tuple[str, ...] | None = None
    allowed_mcp_servers: tuple[ServerMatch, ...] | None = None
    denied_mcp_servers: tuple[ServerMatch, ...] = ()
    telemetry: TelemetryWire | None = None
    max_turns: int | None = Field(default=None, ge=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_cost_usd: float | None = Field(default=None, gt=0)
    timeout_seconds: float | None = Field(default=None, gt=0)
    command_timeout_seconds: float | None = Field(default=None, gt=0, le=3600)
    # Run in every session, whatever the other layers say; allowManagedHooksOnly: only these.
    hooks: HooksWire = Field(default_factory=dict)
    allow_managed_hooks_only: bool = False

    @field_validator("secret_files")
    @classmethod
    def _no_exemptions(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(p.startswith("!") for p in value):
            raise ValueError("a managed file only adds secret files: no `!` exemptions")
        return value


@dataclass(frozen=True)
class ManagedPolicy:
    """One managed file as read; two are the same when their files are."""

    path: str
    text: str
    wire: ManagedWire = field(compare=False, hash=False, repr=False)

    @property
    def disables_bypass(self) -> bool:
        return self.wire.permissions.disable_bypass_mode

    def enforces(self) -> tuple[str, ...]:
        """What the policy holds, in a few words each (for the faces and the doctor)."""
        m, p = self.wire, self.wire.permissions
        said = [
            _count(p.deny, "deny rule"),
            _count(p.ask, "ask rule"),
            _count(p.protected_paths, "protected path"),
            "no bypass mode" if p.disable_bypass_mode else "",
            "sandbox required" if m.sandbox == "required" else "",
            "no network in the sandbox" if m.sandbox_network is False else "",
            f"models {', '.join(m.allowed_models)}" if m.allowed_models is not None else "",
            f"providers {', '.join(m.allowed_providers)}"
            if m.allowed_providers is not None
            else "",
            "an MCP server allow list" if m.allowed_mcp_servers is not None else "",
            "an MCP server deny list" if m.denied_mcp_servers else "",
            "telemetry settings" if m.telemetry is not None else "",
            _count(
                tuple(h.command for ms in m.hooks.values() for x in ms for h in x.hooks), "hook"
            ),
            "only its own hooks" if m.allow_managed_hooks_only else "",
            "limits" if any(getattr(m, _snake(k)) is not None for k in CEILINGS) else "",
        ]
        return tuple(s for s in said if s)

    def apply(
        self, wire: dict[str, Any], *, earlier: tuple[str, ...] = ()
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        """The lower layers' settings (their wire form, every key set) with the policy laid
        over them, and what it changed of what someone had set."""
        m = self.wire
        out = dict(wire)
        overrides = list(earlier)
        told = overrides.append
        defaults = WireSettings().model_dump(mode="json", by_alias=True)
        out["permissions"] = self._permissions(out.get("permissions") or {}, told)
        if m.permissions.disable_bypass_mode and out["mode"] == "bypass":
            out["mode"] = "default"
            told('mode "bypass" (bypass mode is turned off here): the default mode instead')
        if m.sandbox == "required" and out["sandbox"] != "required":
            if out["sandbox"] == "off":
                told('sandbox "off": commands run only in the sandbox here')
            out["sandbox"] = "required"
        if m.sandbox_network is False and out["sandboxNetwork"]:
            told("sandboxNetwork true: commands get no network here")
            out["sandboxNetwork"] = False
        for key in CEILINGS:
            ceiling = getattr(m, _snake(key))
            now = out.get(key)
            if ceiling is not None and (now is None or now > ceiling):
                if now != defaults[key]:
                    told(f"{key} {json.dumps(now)}: at most {json.dumps(ceiling)} here")
                out[key] = ceiling
        out["secretFiles"] = [*out.get("secretFiles", []), *m.secret_files]
        self._check_model(out["model"])
        out["mcpServers"] = self._servers(out.get("mcpServers") or {}, told)
        if m.telemetry is not None:
            out["telemetry"] = self._telemetry(out.get("telemetry") or {}, defaults, told)
        others = bool(out.get("hooks")) and not out.get("disableAllHooks")
        if m.allow_managed_hooks_only and others:
            told("hooks: only the managed settings' hooks run here")
        return out, tuple(dict.fromkeys(overrides))

    def _permissions(self, given: dict[str, Any], told: Callable[[str], None]) -> dict[str, Any]:
        p = self.wire.permissions
        merged = dict(given)
        for key, more in (("deny", p.deny), ("ask", p.ask), ("protectedPaths", p.protected_paths)):
            if more:
                merged[key] = [
                    *merged.get(key, []),
                    *(r for r in more if r not in merged.get(key, [])),
                ]
        stricter = [parse_rule(r) for r in (*p.deny, *p.ask)]
        for raw in given.get("allow", []):
            allow = parse_rule(raw)
            if any(r.applies_to(allow.tool) or allow.applies_to(r.tool) for r in stricter):
                told(f"permissions.allow {raw}: the managed deny and ask rules for its tool win")
        return merged

    def _check_model(self, model: str) -> None:
        m = self.wire
        provider = model.partition(":")[0]
        if m.allowed_providers is not None and provider not in m.allowed_providers:
            raise ConfigError(
                f"the model {model} is not allowed here: the managed settings ({self.path}) "
                f"allow the providers {', '.join(m.allowed_providers) or '(none)'}"
            )
        if m.allowed_models is not None and not any(match_text(g, model) for g in m.allowed_models):
            raise ConfigError(
                f"the model {model} is not allowed here: the managed settings ({self.path}) "
                f"allow {', '.join(m.allowed_models) or 'no model'}; choose one with --model "
                "or the model setting"
            )

    def _servers(self, servers: dict[str, Any], told: Callable[[str], None]) -> dict[str, Any]:
        m = self.wire
        kept: dict[str, Any] = {}
        for name, server in servers.items():
            denied = any(d.matches(name, server) for d in m.denied_mcp_servers)
            unlisted = m.allowed_mcp_servers is not None and not any(
                a.matches(name, server) for a in m.allowed_mcp_servers
            )
            if denied or unlisted:
                told(f"mcpServers.{name}: left out, the managed settings do not allow it")
            else:
                kept[name] = server
        return kept

    def _telemetry(
        self, given: dict[str, Any], defaults: dict[str, Any], told: Callable[[str], None]
    ) -> dict[str, Any]:
        managed = self.wire.telemetry
        assert managed is not None
        out = {**defaults["telemetry"], **given}
        pinned = managed.model_dump(mode="json", by_alias=True, include=managed.model_fields_set)
        for key, value in pinned.items():
            if out.get(key) != value and out.get(key) != defaults["telemetry"].get(key):
                told(f"telemetry.{key}: the managed value instead")
            out[key] = value
        return out


@dataclass(frozen=True)
class ManagedState:
    """The policy in force over a `Settings`, and what it overrode of the other layers."""

    policy: ManagedPolicy
    overrides: tuple[str, ...] = ()

    def notice(self) -> str:
        """What every face says at start while a managed policy is in force."""
        what = ", ".join(self.policy.enforces()) or "no restriction"
        text = f"managed settings in force ({self.policy.path}: {what})"
        if self.overrides:
            text += "; they override " + "; ".join(self.overrides)
        return text


def read_managed(path: Path | None = None) -> ManagedPolicy | None:
    """The machine's managed policy; None when there is no file. A file that is there but
    does not load raises ConfigError: fail closed, never no policy."""
    path = path or managed_settings_path()
    if not os.path.lexists(path):
        return None
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _broken(path, f"cannot read it ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _broken(path, f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise _broken(path, "it must hold a JSON object")
    for key, why in _not_enforceable(data):
        raise _broken(path, f"{key}: {why}")
    try:
        wire = ManagedWire.model_validate_json(text, strict=True)
    except ValidationError as exc:
        problems = []
        for item in exc.errors(include_url=False):
            where = ".".join(str(p) for p in item["loc"]) or "settings"
            problems.append(f"{where}: {item['msg']}")
        raise _broken(path, "; ".join(problems)) from None
    return ManagedPolicy(str(path), text, wire)


def _not_enforceable(data: dict[str, Any]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    permissions = data.get("permissions")
    if isinstance(permissions, dict) and "allow" in permissions:
        found.append(("permissions.allow", _NOT_ENFORCEABLE["allow"]))
    return found


def _broken(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"the managed settings {path} do not load: {why}. No ask runs until whoever manages "
        "this machine fixes the file (or removes it)"
    )


def _count(items: tuple[str, ...], what: str) -> str:
    if not items:
        return ""
    return f"{len(items)} {what}" + ("" if len(items) == 1 else "s")


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
