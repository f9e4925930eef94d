"""The session's slash commands: /undo and /mode without the model; /compact with one
summary call, as a run compacts when its context fills."""

from __future__ import annotations

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from agentls.acp.session import AcpSession
from agentls.contracts.model_io import ModelError
from agentls.conversation.open_sessions import SessionBusy
from agentls.conversation.undo import UndoRefused, undo_last_ask, undo_turn
from agentls.permissions.modes import parse_mode
from agentls.session.store import SessionStore

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
NAMES = frozenset(c.name for c in COMMANDS)


def command_of(text: str) -> tuple[str, str] | None:
    """(name, argument) when the prompt is one of the session's commands."""
    if not text.startswith("/"):
        return None
    name, _, argument = text[1:].strip().partition(" ")
    return (name, argument.strip()) if name in NAMES else None


async def run_command(session: AcpSession, store: SessionStore, name: str, argument: str) -> str:
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
    if argument and not argument.isdigit():
        return f"/undo takes a turn number, not {argument!r}"
    conversation, workspace = session.conversation, session.workspace
    path = store.path_for(session.id)
    try:
        async with conversation.claimed():  # not while this session runs here or elsewhere
            if argument:
                result = await undo_turn(
                    state_dir=store.state_dir,
                    log_path=path,
                    workspace_root=workspace.root,
                    target=workspace,
                    number=int(argument),
                    log=conversation.log,
                )
            else:
                result = await undo_last_ask(
                    state_dir=store.state_dir,
                    log_path=path,
                    workspace_root=workspace.root,
                    target=workspace,
                    log=conversation.log,
                )
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
