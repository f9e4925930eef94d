"""Layering settings sources into one `Settings`: the one place every face does it.

Lowest first: the defaults, the person's own file, the workspace file, what the
face was given (the editor's settings, ACP's session servers), command-line
flags. A later layer wins key by key; rule lists and MCP servers add up (see
`load_settings`). A layer that came with the repository (an unapproved
workspace file, VS Code's workspace-scoped values) is *untrusted*: only its
harmless part applies (``untrusted_part``) and the rest is named in a note.
Over them all, the machine's managed policy (settings_managed.py), which only
tightens; a note says it is in force and what it overrode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings, load_settings, with_managed
from agentls.conversation.settings_managed import ManagedPolicy

# Apply from an unapproved source as they are: they change how the context is
# kept, how the person is asked, or sampling; never where requests go, what runs,
# or what the gate allows.
HARMLESS_KEYS = frozenset(
    {
        "contextWindow",
        "compaction",
        "compactionThreshold",
        "verbatimTurns",
        "toolResultBudget",
        "temperature",
        "toolChoice",
        "approvalsVia",
        "reviewVia",
        # Who answers code questions: the editor, agentls's own servers (the ones "auto"
        # may start anyway), or both; the servers themselves are set only when trusted.
        "languageIntelligence",
    }
)
# Apply only when lower than what is already in force.
LOWER_ONLY_KEYS = (
    "maxTurns",
    "maxTokens",
    "maxCostUsd",
    "timeoutSeconds",
    "commandTimeoutSeconds",
    "approvalTimeoutSeconds",
    "maxBackgroundProcesses",
)
# Rule lists that only ever make the gate stricter (protectedPaths: more control files).
_TIGHTENING_RULES = ("deny", "ask", "protectedPaths")
_TIGHTENING_VALUES = (("sandbox", "required"), ("sandboxNetwork", False))
_STRICTNESS = {"plan": 0, "default": 1, "accept-edits": 2, "bypass": 3}


@dataclass(frozen=True, slots=True)
class SettingsLayer:
    """One source's settings (camelCase keys; None: the source had none).

    ``ignored``: set for an untrusted layer, the note told when keys are
    ignored from it, with ``{ignored}`` where their names go.
    """

    data: Any
    ignored: str | None = None

    @classmethod
    def untrusted(cls, data: Any, note: str) -> SettingsLayer:
        return cls(data, note)


@dataclass(frozen=True, slots=True)
class LoadedSettings:
    settings: Settings
    notes: tuple[str, ...]  # what the person must hear: ignored keys, and how to approve them


def layer_settings(*layers: SettingsLayer, managed: ManagedPolicy | None = None) -> LoadedSettings:
    """Defaults under ``layers``, lowest first, and the ``managed`` policy over them all. A
    bad layer raises ConfigError naming the key; so does a model the policy does not allow."""
    settings = Settings()
    notes: list[str] = []
    for layer in layers:
        data = layer.data
        if data is None:
            continue
        if not isinstance(data, dict):
            raise ConfigError(f"settings must be an object, got {type(data).__name__}")
        if layer.ignored is not None:
            data, dropped = untrusted_part(data, settings)
            if dropped:
                notes.append(layer.ignored.format(ignored=", ".join(dropped)))
        settings = load_settings(data, base=settings)
    if managed is not None:
        settings = with_managed(settings, managed)
        assert settings.managed is not None
        notes.append(settings.managed.notice())
    return LoadedSettings(settings, tuple(notes))


def untrusted_part(data: dict[str, Any], base: Settings) -> tuple[dict[str, Any], list[str]]:
    """What applies from an unapproved settings layer over ``base``, and what is ignored."""
    current = base.to_wire()
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in data.items():
        if key in HARMLESS_KEYS or value is None:
            kept[key] = value
        elif key in LOWER_ONLY_KEYS:
            now = current.get(key)
            if not _is_number(value) or now is None or value <= now:
                kept[key] = value  # a wrong type is kept so that validation names it
            else:
                dropped.append(f"{key}={json.dumps(value)} (higher than {now})")
        elif key == "mode" and isinstance(value, str):
            if _STRICTNESS.get(value, 99) <= _STRICTNESS.get(current["mode"], 1):
                kept[key] = value
            else:
                dropped.append(f"mode={json.dumps(value)} (looser than {current['mode']})")
        elif key == "permissions" and isinstance(value, dict):
            tighter = {k: v for k, v in value.items() if k in _TIGHTENING_RULES}
            if tighter:
                kept[key] = tighter
            dropped += [f"permissions.{k}" for k in value if k not in _TIGHTENING_RULES]
        elif (key, value) in _TIGHTENING_VALUES:  # stricter than anything else it could say
            kept[key] = value
        elif key == "secretFiles" and isinstance(value, list):
            kept[key] = [p for p in value if not str(p).startswith("!")]
            if len(kept[key]) < len(value):
                dropped.append("secretFiles exemptions")
        else:
            dropped.append(key)
    return kept, dropped


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
