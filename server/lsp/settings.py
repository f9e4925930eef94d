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


def section_of(raw: Any) -> Any:
    """Accept both ``{"agentls": {...}}`` and the bare ``{...}``."""
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        return raw[SECTION]
    return raw


def merge_settings(*layers: Any) -> Settings:
    """Later layers win; a bad layer raises ConfigError naming every problem."""
    settings = Settings()
    for layer in layers:
        layer = section_of(layer)
        if layer is None:
            continue
        if not isinstance(layer, dict):
            raise ConfigError(f"settings must be an object, got {type(layer).__name__}")
        core = {k: v for k, v in layer.items() if k not in FACE_KEYS}
        settings = load_settings(core, base=settings)
    return settings


def merge_face_settings(*layers: Any) -> FaceSettings:
    merged: dict[str, Any] = {}
    for layer in layers:
        layer = section_of(layer)
        if isinstance(layer, dict):
            merged.update({k: v for k, v in layer.items() if k in FACE_KEYS and v is not None})
    try:
        return FaceSettings.model_validate(merged)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ConfigError(f"bad settings: {problems}") from None
