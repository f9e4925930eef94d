"""workspace/executeCommand: agentls.ask, agentls.cancel, agentls.sessions,
agentls.showTranscript, agentls.setMode.

Arguments and results are the models of `agentls.protocol.commands`, imported
in the handlers: they load after `initialize`, with the first command.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from agentls.lsp.asking.approvals import LspApprover
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints
from agentls.permissions.modes import parse_mode
from agentls.workspace.atomic import replace_atomically

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agentls.protocol.commands import AskParams

ASK, CANCEL, SESSIONS, SHOW_TRANSCRIPT, SET_MODE = (
    "agentls.ask",
    "agentls.cancel",
    "agentls.sessions",
    "agentls.showTranscript",
    "agentls.setMode",
)
MAX_SELECTION_CHARS = 20_000
P = TypeVar("P", bound="BaseModel")


def no_argument(args: tuple[Any, ...]) -> bool:
    """Editors that cannot pass an argument send none, `{}`, or (Emacs) `null`."""
    return not args or args in (({},), (None,))


def parse(model: type[P], args: tuple[Any, ...], command: str) -> P:
    """The command's one object argument as its model, or InvalidParams naming the field.

    Emacs reads a JSON `{}` as nil and writes nil back as `null`: a command it
    was handed with `[{}]` (a code action's) comes back as `[null]`, read as `{}`.
    """
    from pydantic import ValidationError

    argument = {} if args == (None,) else args[0] if len(args) == 1 else None
    if not isinstance(argument, dict):
        raise JsonRpcInvalidParams(message=f"{command} takes one object argument")
    try:
        return model.model_validate(argument)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'argument'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise JsonRpcInvalidParams(message=f"{command}: {problems}") from None


# Inside an editor the model is picked with a setting, not with the CLI's flag.
CLI_MODEL_HINT = "with `--model scripted:FILE`"
EDITOR_MODEL_HINT = (
    'by setting `model` to "scripted:demo" in your editor\'s agentls settings '
    "(or in ~/.config/agentls/settings.json). The key must be in the environment the "
    "editor starts agentls in: restart the server after setting it"
)


def for_editors(message: str) -> str:
    return message.replace(CLI_MODEL_HINT, EDITOR_MODEL_HINT)


def register(server: AgentServer) -> None:
    @server.command(ASK)
    async def ask(ls: AgentServer, *args: Any) -> dict[str, Any]:
        await ls.wait_for_settings()  # a run right after start-up uses the editor's settings
        # (and finds these loaded by then, on the start-up thread, not on the event loop)
        from agentls.lsp.run_events import LspRunObserver, shows_cost
        from agentls.protocol.commands import AskFinished, AskParams, AskStarted

        params = parse(AskParams, args, ASK)
        try:
            root = await ls.root_for_async(params.uri)
            conversation = await ls.conversation_for_async(params.session_id, root)
        except JsonRpcInvalidParams as exc:
            raise JsonRpcInvalidParams(message=for_editors(exc.message)) from None
        workspace = conversation.workspace
        prompt = await with_editor_context(ls, workspace, params)
        observer = LspRunObserver(ls, conversation.session_id, params.prompt)
        observer.show_cost = shows_cost(conversation.settings.model.id)
        approver = LspApprover(
            ls, session_id=conversation.session_id, emit=observer.edit, origin_uri=params.uri
        )
        from agentls.conversation.open_sessions import (
            SessionBusy,  # loaded by now (the session opened)
        )
        from agentls.lsp.files.lsp_workspace import LspWorkspace

        try:
            handle = await conversation.start(prompt, approver=approver, observer=observer)
        except SessionBusy as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        observer.run_id = handle.run_id
        observer.run_started()
        if isinstance(workspace, LspWorkspace):
            workspace.link.attach(observer.edit)  # bound to the session when it opened
        ls.last_session = conversation.session_id
        ls.runs[handle.run_id] = handle
        handle.task.add_done_callback(lambda _: ls.runs.pop(handle.run_id, None))
        handle.task.add_done_callback(  # rendering reads the whole log: off the event loop
            lambda _: _in_thread(write_transcript, ls, conversation.session_id)
        )
        observer.start_progress(handle.cancel)
        if not params.wait:
            return AskStarted(session_id=conversation.session_id, run_id=handle.run_id).wire()
        request_id = ls.protocol.current_request_id()
        ls.waited_runs[request_id] = handle
        try:
            result = await handle.result()
        finally:
            ls.waited_runs.pop(request_id, None)
        return AskFinished.of(
            conversation.session_id, handle.run_id, result, show_cost=observer.show_cost
        ).wire()

    @server.command(CANCEL)
    def cancel(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import CancelParams, CancelResult

        params = CancelParams() if no_argument(args) else parse(CancelParams, args, CANCEL)
        if params.session_id is None:  # editors that cannot pass arguments: every run
            ended = [h.session_id for h in list(ls.runs.values()) if h.cancel()]
            return CancelResult(session_id=None, cancelled=bool(ended), session_ids=ended).wire()
        conversation = ls.manager.get(params.session_id)
        cancelled = conversation is not None and conversation.cancel()
        return CancelResult(session_id=params.session_id, cancelled=cancelled).wire()

    @server.command(SESSIONS)
    async def sessions(ls: AgentServer, *args: Any) -> list[dict[str, Any]]:
        from agentls.lsp.run_events import shows_cost
        from agentls.protocol.commands import SessionInfo

        if args:
            raise JsonRpcInvalidParams(message=f"{SESSIONS} takes no arguments")
        listed = []
        # Every session file of the workspace is read: on a thread, the editor served.
        roots, store = await ls.roots_async(), ls.store
        stored = await asyncio.to_thread(lambda: [store.list(root) for root in roots])
        for infos in stored:
            for info in infos:
                conversation = ls.manager.get(info.id)
                listed.append(
                    SessionInfo(
                        session_id=info.id,
                        created_at=info.created_at,
                        workspace=info.workspace,
                        first_prompt=info.first_prompt,
                        outcome=info.outcome,
                        runs=info.runs,
                        # As the run's events say it: no price for a scripted model.
                        cost_usd=info.cost_usd if shows_cost(info.model) else None,
                        running=conversation is not None and conversation.running,
                    ).wire()
                )
        return listed

    @server.command(SHOW_TRANSCRIPT)
    async def show_transcript(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import TranscriptParams, TranscriptShown

        if no_argument(args):
            params = TranscriptParams()
        else:
            params = parse(TranscriptParams, args, SHOW_TRANSCRIPT)
        # Editors that cannot pass arguments: the latest session.
        session_id = await latest_session(ls) if params.session_id is None else params.session_id
        try:
            path = ls.store.path_for(session_id)
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        if not await asyncio.to_thread(path.exists):
            raise JsonRpcInvalidParams(message=f"agentls: no session {session_id}")
        uri = (await asyncio.to_thread(write_transcript, ls, session_id)).as_uri()
        shown = await ls.show_document(uri)
        return TranscriptShown(session_id=session_id, uri=uri, shown=shown).wire()

    @server.command(SET_MODE)
    async def set_mode(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.protocol.commands import ModeSet, SetModeParams

        params = parse(SetModeParams, args, SET_MODE)
        try:
            mode = parse_mode(params.mode)
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        if params.session_id is None:
            from agentls.conversation.settings import load_settings

            async with ls.settings_update():  # after a refresh under way, and it outlives them
                ls.modes.choose(mode)
                layers = [*ls.editor_layers, {"mode": mode.value}]
                await ls.apply_settings_async(
                    load_settings({"mode": mode.value}, base=ls.settings), layers
                )
        else:
            conversation = ls.manager.get(params.session_id)
            if conversation is None:
                raise JsonRpcInvalidParams(
                    message=f"agentls: session {params.session_id} is not open"
                )
            try:
                conversation.set_mode(mode)
            except ValueError as exc:  # a mode the managed settings turn off
                raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        return ModeSet(mode=mode, session_id=params.session_id).wire()


async def latest_session(server: AgentServer) -> str:
    """The session asked last in this server, else the newest of the workspace folders
    (their session files read on a thread)."""
    if server.last_session is not None:
        return server.last_session
    roots, store = await server.roots_async(), server.store
    stored = await asyncio.to_thread(lambda: [info for root in roots for info in store.list(root)])
    if not stored:
        raise JsonRpcInvalidParams(message="agentls: no session yet in this workspace")
    return max(stored, key=lambda info: info.created_at).id


def _in_thread(function: Any, *args: Any) -> None:
    """Run ``function`` on a worker thread; what it raises is logged, never lost."""

    def done(future: asyncio.Future[Any]) -> None:
        if future.exception() is not None:
            logging.getLogger(__name__).warning("%s: %s", function.__name__, future.exception())

    asyncio.get_running_loop().run_in_executor(None, function, *args).add_done_callback(done)


def write_transcript(server: AgentServer, session_id: str) -> Path:
    """The session's markdown transcript, written next to its log."""
    from agentls.session.reader import read_events
    from agentls.session.transcript import render_transcript

    source = server.store.path_for(session_id)
    folder = server.store.state_dir / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{session_id}.md"
    # Whole, even when a run's end and agentls.showTranscript write it at once.
    replace_atomically(target, render_transcript(read_events(source)))
    return target


async def with_editor_context(server: AgentServer, workspace: Any, params: AskParams) -> str:
    """The prompt plus the file and selection it was asked about, if any."""
    if params.uri is None:
        return params.prompt
    path = Path(to_fs_path(params.uri) or "")
    try:
        rel = workspace.relative(str(path))
    except Exception:
        return params.prompt
    if params.range is None:
        return f"{params.prompt}\n\n(The person is looking at {rel}.)"
    lines = (await server.editor.document_lines(params.uri))[
        params.range.start.line : params.range.end.line + 1
    ]
    text = "".join(lines)[:MAX_SELECTION_CHARS]
    first, last = params.range.start.line + 1, params.range.end.line + 1
    return f"{params.prompt}\n\nFrom {rel}, lines {first}-{last}:\n```\n{text.rstrip()}\n```"
