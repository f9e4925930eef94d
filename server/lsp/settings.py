"""Settings from initializationOptions and workspace/configuration (section `agentls`).

Most settings are the core's (`Settings`); a few say only how this face talks
to the editor (`FaceSettings`: how approvals and edit reviews are asked). They
are taken out of each layer before the core reads it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings, load_settings
from agentls.conversation.settings_files import untrusted_part
from agentls.workspace.sandbox import startup_warning

SECTION = "agentls"


class FaceSettings(BaseModel):
    """How the person is asked, in this editor.

    approvalsVia: "auto" (a prompt, or code actions once the editor shows it
    cannot prompt), "prompt", "codeAction" (the question waits as code actions
    and an Information diagnostic, answered through agentls.answer).
    reviewVia: "auto" (the editor's own preview where it has one, else as for
    approvals), "editor", "prompt", "codeAction".
    """

    model_config = ConfigDict(extra="ignore", alias_generator=to_camel, frozen=True)

    approvals_via: Literal["auto", "prompt", "codeAction"] = "auto"
    review_via: Literal["auto", "editor", "prompt", "codeAction"] = "auto"


FACE_KEYS = frozenset({"approvalsVia", "reviewVia"})
# The editor's workspace-scoped values, sent apart from the person's own (VS Code).
WORKSPACE_SCOPED = "workspaceScoped"


def section_of(raw: Any) -> Any:
    """Accept both ``{"agentls": {...}}`` and the bare ``{...}``."""
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        return raw[SECTION]
    return raw


def merge_settings(*layers: Any) -> Settings:
    """Later layers win; a bad layer raises ConfigError naming every problem."""
    return _merge(layers)[0]


def settings_notes(settings: Settings, *layers: Any) -> list[str]:
    """What the person must hear at start: settings of the workspace scope that were
    ignored, and commands running without a sandbox."""
    try:
        notes = _merge(layers)[1]
    except ConfigError:
        notes = []  # told as an error by whoever applied the settings
    warning = startup_warning(settings.sandbox_settings())
    return [*notes, *([warning] if warning else [])]


def _merge(layers: tuple[Any, ...]) -> tuple[Settings, list[str]]:
    settings = Settings()
    notes: list[str] = []
    for layer in layers:
        layer = section_of(layer)
        if layer is None:
            continue
        if not isinstance(layer, dict):
            raise ConfigError(f"settings must be an object, got {type(layer).__name__}")
        core = {k: v for k, v in layer.items() if k not in FACE_KEYS and k != WORKSPACE_SCOPED}
        settings = load_settings(core, base=settings)
        scoped = layer.get(WORKSPACE_SCOPED)
        if isinstance(scoped, dict):
            # The editor's workspace scope comes with the repository: untrusted like
            # the workspace settings file.
            core = {k: v for k, v in scoped.items() if k not in FACE_KEYS}
            kept, dropped = untrusted_part(core, settings)
            settings = load_settings(kept, base=settings)
            if dropped:
                notes.append(
                    f"ignoring {', '.join(dropped)} from the editor's workspace settings: "
                    "they could route your keys or loosen the gate. Set them in your user "
                    "settings, or in .agentls/settings.json and approve that file with "
                    "`agentls trust`"
                )
    return settings, notes


def merge_face_settings(*layers: Any) -> FaceSettings:
    merged: dict[str, Any] = {}
    for layer in layers:
        layer = section_of(layer)
        if isinstance(layer, dict):
            scoped = layer.get(WORKSPACE_SCOPED)
            for part in (layer, scoped if isinstance(scoped, dict) else {}):
                merged.update({k: v for k, v in part.items() if k in FACE_KEYS and v is not None})
    try:
        return FaceSettings.model_validate(merged)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ConfigError(f"bad settings: {problems}") from None
