"""The ACP face's built-in commands come first, and no command file may take their names."""

from __future__ import annotations

from pathlib import Path

from agentls.acp import commands
from agentls.conversation.command_files import RESERVED, CommandCatalog, PromptCommand


def test_every_built_in_name_is_reserved_from_command_files() -> None:
    assert commands.NAMES <= RESERVED


def test_prompt_commands_follow_the_built_in_ones() -> None:
    command = PromptCommand(
        name="review", description="", argument_hint=None, path=Path("/p/r.md"),
        shown_as=".agentls/commands/review.md", scope="workspace", form="markdown",
        body="Review $1", sha256="0" * 64, trusted=False,
    )  # fmt: skip
    listed = commands.available_commands(CommandCatalog((command,)))
    assert [c.name for c in listed] == [*(c.name for c in commands.COMMANDS), "review"]
    last = listed[-1]
    assert last.description == ".agentls/commands/review.md (project)"  # no description
    assert last.input is not None and last.input.root.hint == "arguments"
    assert commands.command_of("/review a.py") is None  # the core expands it, not the face
