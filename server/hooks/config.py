"""The `hooks` setting, in Claude Code's shape, and the hooks a session runs.

    "hooks": {"PreToolUse": [{"matcher": "run_command|Edit",
                              "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}

An event names a list of matchers, each with its commands. A matcher is matched
against the event's target (a tool's name for the tool events, in agentls's spelling
or Claude Code's; the source of `SessionStart`, the trigger of `PreCompact`, the
kind of `Notification`, the reason of `SessionEnd`; `UserPromptSubmit` and `Stop`
have none): empty or `*` matches everything, words joined by `|` match exactly one
of them, anything else is a regular expression searched in the name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
]
EVENTS: tuple[str, ...] = get_args(HookEvent)
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
# Events Claude Code matches nothing for: their matchers are ignored, as there.
UNMATCHED_EVENTS = frozenset({"UserPromptSubmit", "Stop"})
DEFAULT_TIMEOUT_SECONDS = 60.0
_PLAIN = re.compile(r"[A-Za-z0-9_|-]+")
_STRICT = ConfigDict(extra="forbid", frozen=True)


class CommandHookWire(BaseModel):
    """One command a matcher runs. ``sandbox: false`` runs it outside the sandbox (only a
    trusted settings file can say so: an untrusted file's hooks never apply at all)."""

    model_config = _STRICT

    type: Literal["command"]
    command: str = Field(min_length=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT_SECONDS, gt=0, le=3600)
    sandbox: bool = True


class MatcherWire(BaseModel):
    model_config = _STRICT

    matcher: str = ""
    hooks: tuple[CommandHookWire, ...] = Field(min_length=1)

    @field_validator("matcher")
    @classmethod
    def _compiles(cls, value: str) -> str:
        if not _PLAIN.fullmatch(value) and value not in ("", "*"):
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"matcher {value!r} is not a regular expression: {exc}") from None
        return value


HooksWire = dict[HookEvent, tuple[MatcherWire, ...]]


def matches(matcher: str, names: Iterable[str]) -> bool:
    """Whether ``matcher`` takes any of ``names`` (a tool's names, or a source)."""
    if matcher in ("", "*"):
        return True
    if _PLAIN.fullmatch(matcher):
        words = set(matcher.split("|"))
        return any(name in words for name in names)
    pattern = re.compile(matcher)
    return any(pattern.search(name) for name in names)


@dataclass(frozen=True, slots=True)
class HookCommand:
    """One hook command as it runs: its event and matcher, and where it came from."""

    event: str
    command: str
    matcher: str = ""
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    sandbox: bool = True
    managed: bool = False  # from the managed settings: nothing below removes it


@dataclass(frozen=True)
class HookSet:
    """The hooks a session runs, per event: the settings' own (every trusted layer, added
    up) unless turned off, then the managed settings', which nothing turns off."""

    commands: tuple[HookCommand, ...] = ()
    _by_event: dict[str, tuple[HookCommand, ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        for event in EVENTS:
            found = tuple(c for c in self.commands if c.event == event)
            if found:
                self._by_event[event] = found

    @classmethod
    def of(
        cls,
        settings: Mapping[HookEvent, Sequence[MatcherWire]],
        managed: Mapping[HookEvent, Sequence[MatcherWire]] | None = None,
        *,
        settings_off: bool = False,
    ) -> HookSet:
        commands: list[HookCommand] = []
        layers: list[tuple[Mapping[HookEvent, Sequence[MatcherWire]], bool]] = [
            (managed or {}, True)
        ]
        if not settings_off:
            layers.insert(0, (settings, False))
        for wire, is_managed in layers:
            for event, matchers in wire.items():
                for m in matchers:
                    commands += [
                        HookCommand(event, h.command, m.matcher, h.timeout, h.sandbox, is_managed)
                        for h in m.hooks
                    ]
        return cls(tuple(commands))

    def has(self, event: str) -> bool:
        return event in self._by_event

    def matching(self, event: str, names: Sequence[str]) -> tuple[HookCommand, ...]:
        """The commands to run for ``event`` on a target of these names, each command
        once (a managed one first: it is the one that stays)."""
        found: dict[str, HookCommand] = {}
        unmatched = event in UNMATCHED_EVENTS
        for hook in sorted(self._by_event.get(event, ()), key=lambda c: not c.managed):
            if hook.command in found:
                continue
            if unmatched or matches(hook.matcher, names):
                found[hook.command] = hook
        return tuple(found.values())


NO_HOOK_SET = HookSet()
