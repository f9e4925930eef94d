"""The session's slash commands: /undo, /rewind, /mode and /memory without the model;
/compact with one summary call, as a run compacts when its context fills; then the
workspace's and the person's prompt commands (a prompt naming one is expanded by the
core, as in every face), listed after these, which no command file may take the name of."""

from __future__ import annotations

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from agentls.acp.memory_command import MEMORY_COMMAND, run_memory
from agentls.acp.rewind_command import REWIND_COMMAND, run_rewind
from agentls.acp.session import AcpSession
from agentls.contracts.model_io import ModelError
from agentls.conversation.command_files import CommandCatalog
from agentls.conversation.one_session import SessionBusy
from agentls.conversation.undo import UndoRefused
from agentls.permissions.modes import parse_mode

COMMANDS = [
    AvailableCommand(
        name="undo",
        description="Put back the files the last prompt changed (or those of turn N)",
        input=AvailableCommandInput(
            UnstructuredCommandInput(hint="turn number (default: the last prompt)")
        ),
    ),
    AvailableCommand(
        name="mode",
        description="Switch the permission mode: default, accept-edits, plan or bypass",
        input=AvailableCommandInput(
            UnstructuredCommandInput(hint="default | accept-edits | plan | bypass")
        ),
    ),
]
COMMANDS.append(
    AvailableCommand(
        name="compact",
        description="Summarise the older history now, to free the context for what comes next",
    )
)
COMMANDS.append(MEMORY_COMMAND)
COMMANDS.append(REWIND_COMMAND)
NAMES = frozenset(c.name for c in COMMANDS)


def available_commands(catalog: CommandCatalog) -> list[AvailableCommand]:
    """The built-in commands first, then the prompt commands, each with its input hint."""
    prompts = [
        AvailableCommand(
            name=command.name,
            description=f"{command.description or command.shown_as} "
            f"({'project' if command.scope == 'workspace' else 'user'})",
            input=AvailableCommandInput(UnstructuredCommandInput(hint=command.input_hint)),
        )
        for command in catalog.commands
    ]
    return [*COMMANDS, *prompts]


def command_of(text: str) -> tuple[str, str] | None:
    """(name, argument) when the prompt is one of the session's commands."""
    if not text.startswith("/"):
        return None
    name, _, argument = text[1:].strip().partition(" ")
    return (name, argument.strip()) if name in NAMES else None


async def run_command(session: AcpSession, name: str, argument: str) -> str:
    """What to tell the person; the command's effect is done when this returns."""
    if name == "mode":
        if not argument:
            return f"the mode is {session.mode.value}"
        try:
            mode = parse_mode(argument)
            session.set_mode(mode)  # ValueError: a mode the managed settings turn off
        except ValueError as exc:
            return str(exc)
        return f"mode: {mode.value}"
    if name == "compact":
        return await _compact(session)
    if name == "rewind":
        return await run_rewind(session.conversation, argument)
    if name == "memory":
        state_dir = session.conversation.state_dir
        if state_dir is None:
            return "this session keeps no memory"
        return await run_memory(session.workspace.root, state_dir, argument)
    if argument and not argument.isdigit():
        return f"/undo takes a turn number, not {argument!r}"
    try:  # not while this session runs here or elsewhere
        result = await session.conversation.undo(int(argument) if argument else None)
    except (UndoRefused, SessionBusy) as exc:
        return f"nothing undone: {exc}"
    return result.describe()


async def _compact(session: AcpSession) -> str:
    try:
        done = await session.conversation.compact()
    except SessionBusy as exc:
        return f"not compacted: {exc}"
    except ModelError as exc:
        return f"not compacted: {exc}"
    if not done:
        return "nothing to compact yet: the history is still short"
    return "compacted: the older history is summarised; the next prompt starts from the summary"
