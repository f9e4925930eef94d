"""Settings from initializationOptions and workspace/configuration (section `agentls`).

Each thing the editor sends is a settings layer, in the order sent; VS Code
sends its workspace-scoped values apart (``workspaceScoped``), and those come
with the repository, so they are an untrusted layer right above the person's
own. How this face asks (``approvalsVia``, ``reviewVia``) is `Settings.face`.
"""

from __future__ import annotations

from typing import Any

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import FaceSettings, Settings
from agentls.conversation.settings_layers import LoadedSettings, SettingsLayer, layer_settings
from agentls.workspace.sandbox import startup_warning

__all__ = ["SECTION", "FaceSettings", "editor_layers", "merge_face_settings", "merge_settings"]

SECTION = "agentls"
# The editor's workspace-scoped values, sent apart from the person's own (VS Code).
WORKSPACE_SCOPED = "workspaceScoped"
_SCOPED_NOTE = (
    "ignoring {ignored} from the editor's workspace settings: they could route your keys "
    "or loosen the gate. Set them in your user settings, or in .agentls/settings.json and "
    "approve that file with `agentls trust`"
)


def section_of(raw: Any) -> Any:
    """Accept both ``{"agentls": {...}}`` and the bare ``{...}``."""
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        return raw[SECTION]
    return raw


def editor_layers(*sent: Any) -> list[SettingsLayer]:
    """What the editor sent (initializationOptions, then configuration), as layers."""
    layers: list[SettingsLayer] = []
    for raw in sent:
        data = section_of(raw)
        if not isinstance(data, dict):
            layers.append(SettingsLayer(data))  # None is skipped, anything else is an error
            continue
        layers.append(SettingsLayer({k: v for k, v in data.items() if k != WORKSPACE_SCOPED}))
        scoped = data.get(WORKSPACE_SCOPED)
        if isinstance(scoped, dict):
            layers.append(SettingsLayer.untrusted(scoped, _SCOPED_NOTE))
    return layers


def load_editor_settings(*sent: Any) -> LoadedSettings:
    return layer_settings(*editor_layers(*sent))


def merge_settings(*sent: Any) -> Settings:
    """Later layers win; a bad layer raises ConfigError naming every problem."""
    return load_editor_settings(*sent).settings


def merge_face_settings(*sent: Any) -> FaceSettings:
    return merge_settings(*sent).face


def settings_notes(settings: Settings, *sent: Any) -> list[str]:
    """What the person must hear at start: settings of the workspace scope that were
    ignored, and commands running without a sandbox."""
    try:
        notes = list(load_editor_settings(*sent).notes)
    except ConfigError:
        notes = []  # told as an error by whoever applied the settings
    warning = startup_warning(settings.sandbox)
    return [*notes, *([warning] if warning else [])]
