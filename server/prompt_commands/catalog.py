"""The prompt commands of a workspace, and one command put to use with its arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentls.permissions.rules import Rule
from agentls.prompt_commands.expansion import (
    Format,
    expand,
    invocation,
    takes_arguments,
    unescaped,
)

Scope = Literal["workspace", "user"]

# The ACP face's own commands: they come first there, so no file takes their names in
# any face (a file named so is reported and not offered).
RESERVED = frozenset({"undo", "mode", "compact", "memory", "rewind"})


@dataclass(frozen=True, slots=True)
class PromptCommand:
    name: str  # without the slash; a subfolder's name and `:` before it
    description: str
    argument_hint: str | None
    path: Path
    shown_as: str  # workspace-relative, or the user's file as an absolute path
    scope: Scope
    form: Format
    body: str
    sha256: str  # of the file's bytes
    trusted: bool  # the person's own file, or a workspace file approved with `agentls trust`
    allowed_tools: tuple[str, ...] = ()  # as the file writes them
    requested_rules: tuple[Rule, ...] = ()  # them as allow rules (entries left out noted)
    rules: tuple[Rule, ...] = ()  # those in force: only from a trusted file
    notes: tuple[str, ...] = ()  # what of the file is not used, and why
    shadows: tuple[str, ...] = ()  # files of the same name this one hides

    @property
    def input_hint(self) -> str:
        """What the person may type after the name."""
        if self.argument_hint:
            return self.argument_hint
        return "arguments" if takes_arguments(self.body, self.form) else "(optional) more words"


@dataclass(frozen=True, slots=True)
class CommandUse:
    """A prompt that named a command: the command, the words after its name, and the
    text the model is given."""

    command: PromptCommand
    arguments: str
    text: str

    @property
    def invocation(self) -> str:
        return f"/{self.command.name} {self.arguments}".rstrip()

    def lines(self) -> list[str]:
        """What every face tells the person when the run starts."""
        command = self.command
        head = f"/{command.name}: {command.shown_as}"
        if command.rules:
            head += "; allows " + ", ".join(str(r) for r in command.rules)
        return [head, *command.notes]


@dataclass(frozen=True, slots=True)
class AskedPrompt:
    """A prompt as the model is given it (before a face adds what the person points at),
    and the command it named, if any."""

    text: str
    command: CommandUse | None = None

    def lines(self) -> list[str]:
        return self.command.lines() if self.command is not None else []


def plain(prompt: str) -> AskedPrompt | None:
    """``prompt`` when it names no command (`//…` given with one slash); None when it does."""
    return AskedPrompt(unescaped(prompt)) if invocation(prompt) is None else None


class UnknownPromptCommand(ValueError):
    """A prompt named a command that is not there (the message lists those that are)."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        listing = ", ".join(f"/{n}" for n in known) if known else "none"
        super().__init__(
            f"unknown command /{name}: the commands here are {listing} (files in "
            ".agentls/commands, .claude/commands, .github/prompts or your own "
            "commands folder). To send a prompt that starts with a slash, write two: //"
        )


@dataclass(frozen=True, slots=True)
class CommandCatalog:
    commands: tuple[PromptCommand, ...] = ()
    problems: tuple[str, ...] = ()  # files skipped, and why
    _by_name: dict[str, PromptCommand] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {c.name: c for c in self.commands})

    def get(self, name: str) -> PromptCommand | None:
        return self._by_name.get(name)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.commands]

    def prompt(self, prompt: str, root: Path) -> AskedPrompt:
        """``prompt``, expanded when it starts with one of these commands (``root``: the
        workspace folder); UnknownPromptCommand when it names one that is not here."""
        named = invocation(prompt)
        if named is None:
            return AskedPrompt(unescaped(prompt))
        command = self._by_name.get(named.name)
        if command is None:
            raise UnknownPromptCommand(named.name, self.names)
        text = expand(command.body, named.arguments, command.form, root)
        return AskedPrompt(text, CommandUse(command, named.arguments, text))
