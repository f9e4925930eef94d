"""Permission modes and which tools each one shows the model."""

from __future__ import annotations

from enum import StrEnum

from agentls.contracts.tooling import Risk


class Mode(StrEnum):
    DEFAULT = "default"  # reads run; edits need review; commands need approval
    ACCEPT_EDITS = "accept-edits"  # edits apply without review
    PLAN = "plan"  # read-only: write and execute tools are not even shown
    BYPASS = "bypass"  # no prompts; deny rules still hold


def parse_mode(value: str) -> Mode:
    try:
        return Mode(value)
    except ValueError:
        names = ", ".join(m.value for m in Mode)
        raise ValueError(f"unknown mode {value!r} (choose one of: {names})") from None


def is_visible(risk: Risk, mode: Mode, *, read_only_hint: bool = False) -> bool:
    """Plan mode shows reads, and the external tools their server declares read-only; a
    plan proposal shows only there (it is the way out of plan mode)."""
    if risk is Risk.PLAN:
        return mode is Mode.PLAN
    if mode is not Mode.PLAN or risk in (Risk.READ, Risk.MEMORY):
        return True
    return risk is Risk.EXTERNAL and read_only_hint
