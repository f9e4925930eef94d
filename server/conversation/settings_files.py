"""Settings files: the person's own, and the workspace's `.agentls/settings.json`.

The workspace file travels with the repository, so a stranger may have written
it. Its deny and ask rules always apply; what would loosen the gate (allow
rules, a looser mode, turning the sandbox or its network off, MCP servers,
whose commands agentls would run) applies only
once this machine's person has approved that exact file: when agentls saved a
rule into it at their word, or after `agentls trust`. Approval is kept as the
file's hash in the state dir, so any later change needs approving again.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from agentls.contracts.errors import ConfigError

WORKSPACE_FILE = Path(".agentls") / "settings.json"
_LOOSENING = {"mode": ("accept-edits", "bypass"), "sandbox": ("off",), "sandboxNetwork": (True,)}


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
                kept, dropped = _without_loosening(workspace)
                layers.append(kept)
                if dropped:
                    notes.append(
                        f"{path}: ignoring {', '.join(dropped)} until you approve this file "
                        f"with `agentls trust --workspace {root}`"
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


def _without_loosening(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    kept = dict(data)
    dropped = []
    permissions = kept.get("permissions")
    if isinstance(permissions, dict) and permissions.get("allow"):
        kept["permissions"] = {k: v for k, v in permissions.items() if k != "allow"}
        dropped.append("its allow rules")
    for key, loose in _LOOSENING.items():
        if key in kept and kept[key] in loose:
            dropped.append(f"{key}={json.dumps(kept.pop(key))}")
    if kept.get("sandboxWritable"):
        dropped.append("sandboxWritable")
        kept.pop("sandboxWritable")
    if kept.get("mcpServers"):  # starting an MCP server runs its command
        dropped.append("its mcpServers")
        kept.pop("mcpServers")
    secrets = kept.get("secretFiles")
    if isinstance(secrets, list) and any(str(p).startswith("!") for p in secrets):
        kept["secretFiles"] = [p for p in secrets if not str(p).startswith("!")]
        dropped.append("its secretFiles exemptions")
    return kept, dropped
