"""Opening a session for a client: its ACP workspace, updates, questions and conversation."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from acp.interfaces import Client
from acp.schema import AgentMessageChunk, ClientCapabilities, TextContentBlock

from agentls.acp.errors import auth_required, invalid_params
from agentls.acp.permission import PermissionAsker
from agentls.acp.session import AcpSession
from agentls.acp.settings import session_settings
from agentls.acp.toolcalls import process_ended
from agentls.acp.updates import UpdateStream
from agentls.acp.workspace import AcpWorkspace, ClientFiles
from agentls.contracts.errors import ConfigError
from agentls.contracts.processes import ProcessChange
from agentls.conversation.open_sessions import ConversationManager
from agentls.session.store import SessionNotFound
from agentls.workspace.roots import home, too_broad
from agentls.workspace.sandbox import startup_warning

log = logging.getLogger(__name__)


async def open_session(
    *,
    manager: ConversationManager,
    client: Client,
    capabilities: ClientCapabilities,
    model: str | None,
    cwd: str,
    session_id: str | None,
    servers: list[Any] | None,
) -> AcpSession:
    """A new session in ``cwd``, or an earlier one (``session_id``) rebuilt from its log, in
    the mode and with the "always" rules it had. Its settings files, provider and log are
    made or read on a thread, so the client's other sessions keep streaming meanwhile."""
    root = Path(cwd)
    resolved = await asyncio.to_thread(_resolved_folder, root) if root.is_absolute() else None
    if resolved is None:
        raise invalid_params(f"cwd {cwd!r} is not an absolute folder")
    refusal = await asyncio.to_thread(_too_broad, resolved)
    if refusal is not None:
        raise invalid_params(refusal)
    fs = capabilities.fs
    files = ClientFiles(client, "", bool(fs and fs.read_text_file), bool(fs and fs.write_text_file))
    updates = UpdateStream(client, "")
    holder: list[AcpSession] = []  # the session, once it exists, for a cancelled answer
    asker = PermissionAsker(client, "", updates.flush, lambda: holder[0].cancel())
    workspace = AcpWorkspace(resolved, files, updates, asker)
    try:
        settings = await asyncio.to_thread(
            session_settings, manager.load_settings, root, model, servers
        )
        # Edits are reviewed by AcpWorkspace as a diff, so the gate lets them through to it.
        conversation = await manager.open_async(
            workspace, settings, session_id, edits_reviewed_by_workspace=True
        )
    except ConfigError as exc:
        if "api key" in str(exc).lower():
            raise auth_required(f"agentls: {exc}") from None
        raise invalid_params(f"agentls: {exc}") from None
    except (SessionNotFound, ValueError) as exc:
        raise invalid_params(f"agentls: {exc}") from None
    files.session_id = updates.session_id = asker.session_id = conversation.session_id
    if settings.managed is not None:  # the policy in force: the session's first words
        notice = TextContentBlock(type="text", text=f"agentls: {settings.managed.notice()}\n\n")
        updates.push(AgentMessageChunk(session_update="agent_message_chunk", content=notice))
    warning = startup_warning(settings.sandbox)
    if warning is not None:  # on stderr (stdout carries only ACP frames); the person reads
        log.warning("%s", warning)  # it once per session, with the first command's output
    workspace.session_rules = conversation
    conversation.watch_processes(lambda change: _tell_process(updates, change))
    session = AcpSession(conversation, workspace, updates, asker)
    workspace.cancel_run = session.cancel
    holder.append(session)
    return session


def _tell_process(updates: UpdateStream, change: ProcessChange) -> None:
    update = process_ended(change)
    if update is not None:
        updates.push(update)


def _too_broad(folder: Path) -> str | None:
    """Why ``folder`` is no session's folder: the home folder or `/` (disk calls: on a thread).

    The CLI takes them only when the person names them (`--workspace`); a client's
    cwd is not the person naming it, and ACP has no other way to, so they are refused."""
    if not too_broad(folder):
        return None
    what = "your home folder" if folder == home() else "the filesystem root"
    return (
        f"agentls will not work on {folder}: that is {what}, and the agent could read and "
        "change all of it. Open a project folder (one with .git, pyproject.toml, "
        "package.json, ...) and start the session there"
    )


def _resolved_folder(root: Path) -> Path | None:
    """``root`` with its links resolved, if it is a folder (disk calls: run on a thread)."""
    return root.resolve() if root.is_dir() else None
