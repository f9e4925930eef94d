"""Settings files: the person's own, and the workspace's `.agentls/settings.json`.

The workspace file travels with the repository, so a stranger may have written
it. Until this machine's person approves that exact file (`agentls trust`, or
agentls saving a rule into it at their word), only harmless keys apply from
it: ones that cannot route credentials, run anything or loosen the gate
(``HARMLESS_KEYS``; limits only when they lower; ``mode`` only when stricter;
deny and ask rules; more secret files). Everything else (``model``,
``baseUrl``, ``sandbox*``, ``mcpServers``, allow rules, ...) is ignored with a
note saying how to approve. Approval is kept as the file's hash in the state
dir, so any later change needs approving again. VS Code's workspace-scoped
settings get the same treatment (see ``untrusted_part``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings, load_settings

WORKSPACE_FILE = Path(".agentls") / "settings.json"

# Apply from an unapproved source as they are: they change how the context is
# kept, how the person is asked, or sampling; never where requests go, what runs,
# or what the gate allows.
HARMLESS_KEYS = frozenset(
    {"contextWindow", "compaction", "compactionThreshold", "verbatimTurns", "toolResultBudget",
     "temperature", "toolChoice", "approvalsVia", "reviewVia"}
)  # fmt: skip
# Apply only when lower than what is already in force.
LOWER_ONLY_KEYS = ("maxTurns", "maxTokens", "maxCostUsd", "timeoutSeconds",
                   "commandTimeoutSeconds", "approvalTimeoutSeconds")  # fmt: skip
_STRICTNESS = {"plan": 0, "default": 1, "accept-edits": 2, "bypass": 3}


def user_settings_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "agentls" / "settings.json"


def read_json(path: Path) -> dict[str, Any] | None:
    """The object in a settings file, None when there is none; ConfigError names the file."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object")
    return data


class SettingsFiles:
    def __init__(self, state_dir: Path) -> None:
        self.trust_file = state_dir / "trusted-settings.json"

    def layers(self, root: Path) -> tuple[list[dict[str, Any]], list[str]]:
        """The file layers for a workspace, lowest first, and notes for the person."""
        layers: list[dict[str, Any]] = []
        notes: list[str] = []
        user = read_json(user_settings_path())
        if user is not None:
            layers.append(user)
        path = root / WORKSPACE_FILE
        workspace = read_json(path)
        if workspace is not None:
            if self.is_trusted(path):
                layers.append(workspace)
            else:
                kept, dropped = untrusted_part(workspace, _base_of(user))
                layers.append(kept)
                if dropped:
                    notes.append(
                        f"{path}: ignoring {', '.join(dropped)} until you approve this file "
                        f"with `agentls trust --workspace {root}` (before that only harmless "
                        "settings apply from it)"
                    )
        return layers, notes

    def save_allow_rules(self, root: Path, rules: list[str]) -> Path:
        """Add allow rules to the workspace file and approve the result."""
        path = root / WORKSPACE_FILE
        data = read_json(path) or {}
        if data and not self.is_trusted(path):
            raise ConfigError(f"{path} has changes you have not approved; run `agentls trust`")
        permissions = data.setdefault("permissions", {})
        allow = permissions.setdefault("allow", [])
        allow.extend(rule for rule in rules if rule not in allow)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        self.trust(path)
        return path

    def is_trusted(self, path: Path) -> bool:
        recorded = self._recorded().get(str(path.resolve()))
        return recorded is not None and recorded == _digest(path)

    def trust(self, path: Path) -> None:
        digest = _digest(path)
        if digest is None:
            raise ConfigError(f"cannot read {path} to approve it")
        recorded = self._recorded()
        recorded[str(path.resolve())] = digest
        self.trust_file.parent.mkdir(parents=True, exist_ok=True)
        self.trust_file.write_text(json.dumps(recorded, indent=2) + "\n", encoding="utf-8")

    def _recorded(self) -> dict[str, str]:
        try:
            data = json.loads(self.trust_file.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _base_of(user: dict[str, Any] | None) -> Settings:
    try:
        return load_settings(user)
    except ConfigError:
        return Settings()  # the user file's own problem is reported when it is loaded


def untrusted_part(data: dict[str, Any], base: Settings) -> tuple[dict[str, Any], list[str]]:
    """What applies from an unapproved settings layer over ``base``, and what is ignored."""
    current = base.model_dump(mode="json", by_alias=True)
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
            tighter = {k: v for k, v in value.items() if k in ("deny", "ask")}
            if tighter:
                kept[key] = tighter
            dropped += [f"permissions.{k}" for k in value if k not in ("deny", "ask")]
        elif key == "secretFiles" and isinstance(value, list):
            kept[key] = [p for p in value if not str(p).startswith("!")]
            if len(kept[key]) < len(value):
                dropped.append("secretFiles exemptions")
        else:
            dropped.append(key)
    return kept, dropped


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
