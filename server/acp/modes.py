"""agentls's permission modes as ACP session modes, and the session's config options:
mode, model and reasoning (category `thought_level`, offered when the model takes more
than one level)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from agentls.contracts.reasoning import ReasoningLevel
from agentls.permissions.modes import Mode

REASONING_OPTION = "reasoning"
_LEVELS: dict[ReasoningLevel, tuple[str, str]] = {
    "off": ("Off", "No extended thinking"),
    "low": ("Low", "Think a little before answering"),
    "medium": ("Medium", "Think the problem through"),
    "high": ("High", "Think hard: slower, more tokens"),
}

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


def config_options(
    mode: Mode, model: str, reasoning: ReasoningLevel = "off", levels: Sequence[ReasoningLevel] = ()
) -> list[Any]:
    """The model is fixed for a session's life (its log and prices are per model); the
    reasoning level is offered among ``levels``, those the model takes."""
    options = [
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
    if len(levels) > 1:
        options.append(
            SessionConfigOptionSelect(
                type="select",
                id=REASONING_OPTION,
                name="Reasoning",
                category="thought_level",
                current_value=reasoning,
                description="How hard the model thinks, from the next prompt on",
                options=[
                    SessionConfigSelectOption(value=level, name=name, description=text)
                    for level, (name, text) in _LEVELS.items()
                    if level in levels
                ],
            )
        )
    return options
