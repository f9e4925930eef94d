"""Settings files: the person's own, the workspace's `.agentls/settings.json`, and the
machine's managed settings over both (settings_managed.py).

The workspace file travels with the repository, so a stranger may have written
it. Until this machine's person approves that exact file (`agentls trust`, or
agentls saving a rule into it at their word), only harmless keys apply from
it: ones that cannot route credentials, run anything or loosen the gate
(settings_layers.py: ``HARMLESS_KEYS``; limits only when they lower; ``mode`` only when stricter;
deny and ask rules; more secret files; the sandbox required, its network off).
Everything else (``model``, ``baseUrl``, ``sandbox*``, ``mcpServers``, allow rules,
``telemetry``, ...) is ignored with a
note saying how to approve. Approval is kept as the file's hash in the state
dir, so any later change needs approving again. VS Code's workspace-scoped
settings get the same treatment.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings_layers import LoadedSettings, SettingsLayer, layer_settings
from agentls.conversation.settings_managed import read_managed
from agentls.workspace import control
from agentls.workspace.atomic import replace_atomically

WORKSPACE_FILE = Path(".agentls") / "settings.json"


def user_settings_path() -> Path:
    return control.config_dir() / "settings.json"


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

    def layers(self, root: Path | None) -> list[SettingsLayer]:
        """The person's file, then the workspace's (untrusted until approved), lowest first."""
        layers: list[SettingsLayer] = []
        user = read_json(user_settings_path())
        if user is not None:
            layers.append(SettingsLayer(user))
        if root is None:
            return layers
        path = root / WORKSPACE_FILE
        workspace = read_json(path)
        if workspace is not None and self.is_trusted(path):
            layers.append(SettingsLayer(workspace))
        elif workspace is not None:
            note = (
                f"{path}: ignoring {{ignored}} until you approve this file with "
                f"`agentls trust --workspace {root}` (before that only harmless settings "
                "apply from it)"
            )
            layers.append(SettingsLayer.untrusted(workspace, note))
        return layers

    def load(self, root: Path | None, *more: SettingsLayer) -> LoadedSettings:
        """The files' settings for ``root`` under a face's own layers (``more``, lowest first),
        the machine's managed settings over all; ConfigError when any does not load (a broken
        managed file included: no settings without the policy)."""
        managed = read_managed()
        return layer_settings(*self.layers(root), *more, managed=managed)

    def save_allow_rules(self, root: Path, rules: list[str]) -> Path:
        """Add allow rules to the workspace file and approve the result."""
        path = root / WORKSPACE_FILE
        if not path.parent.resolve().is_relative_to(root.resolve()):
            # A planted link (to the person's own settings folder, say) would make a rule
            # for this workspace one for every workspace.
            raise ConfigError(f"{path.parent} is a link out of the workspace; rules not saved")
        data = read_json(path) or {}
        if data and not self.is_trusted(path):
            raise ConfigError(f"{path} has changes you have not approved; run `agentls trust`")
        permissions = data.setdefault("permissions", {})
        allow = permissions.setdefault("allow", [])
        allow.extend(rule for rule in rules if rule not in allow)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, indent=2) + "\n"
        # Whole, for a refresh reading it meanwhile; a planted link is replaced, not followed.
        replace_atomically(path, text, mode=0o644, keep_mode=True)
        self.trust(path)
        return path

    def is_trusted(self, path: Path) -> bool:
        recorded = self._recorded().get(str(path.resolve()))
        return recorded is not None and recorded == _digest(path)

    def approved(self, path: Path, digest: str) -> bool:
        """Whether ``path`` was approved with exactly these bytes (their sha256), as a
        command file read once is judged by what was read."""
        return self._recorded().get(str(path.resolve())) == digest

    def trust(self, path: Path) -> None:
        digest = _digest(path)
        if digest is None:
            raise ConfigError(f"cannot read {path} to approve it")
        self.approve([(path, digest)])

    def approve(self, files: Sequence[tuple[Path, str]]) -> None:
        """Approve each file with the bytes it had when the person was shown it (sha256)."""
        recorded = self._recorded()
        for path, digest in files:
            recorded[str(path.resolve())] = digest
        self.trust_file.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(self.trust_file, json.dumps(recorded, indent=2) + "\n")

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
