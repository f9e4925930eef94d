"""agentls's permission modes as ACP session modes and config options (mode, model)."""

from __future__ import annotations

from typing import Any

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from agentls.permissions.modes import Mode

_MODES = {
    Mode.DEFAULT: ("Default", "Reads run; edits and commands are asked about"),
    Mode.ACCEPT_EDITS: ("Accept edits", "Edits land without asking; commands are asked about"),
    Mode.PLAN: ("Plan", "Read-only: the agent explores and proposes a plan"),
    Mode.BYPASS: ("Bypass", "Nothing is asked; deny rules still hold"),
}


def mode_state(mode: Mode) -> SessionModeState:
    return SessionModeState(
        current_mode_id=mode.value,
        available_modes=[
            SessionMode(id=m.value, name=name, description=text)
            for m, (name, text) in _MODES.items()
        ],
    )


def config_options(mode: Mode, model: str) -> list[Any]:
    """The model is fixed for a session's life (its log and prices are per model)."""
    return [
        SessionConfigOptionSelect(
            type="select",
            id="mode",
            name="Mode",
            category="mode",
            current_value=mode.value,
            options=[
                SessionConfigSelectOption(value=m.value, name=name, description=text)
                for m, (name, text) in _MODES.items()
            ],
        ),
        SessionConfigOptionSelect(
            type="select",
            id="model",
            name="Model",
            category="model",
            current_value=model,
            description="Chosen per session: start agentls with --model to change it",
            options=[SessionConfigSelectOption(value=model, name=model)],
        ),
    ]
