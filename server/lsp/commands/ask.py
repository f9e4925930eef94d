"""`agentls.ask` {"prompt", "uri"?, "range"?, "sessionId"?, "wait"?}: a run in a session.

The run's events go to the editor as `agentls/event` (`run_events.py`); with
`wait` the request answers when the run ends, and `$/cancelRequest` for it
ends the run (`wire/agent_protocol.py`). The prompt carries the file and lines the
person asked about (`conversation/prompt_context.py`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from agentls.lsp.asking.approvals import LspApprover
from agentls.lsp.commands.arguments import parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

if TYPE_CHECKING:
    from agentls.protocol.commands import AskParams

ASK = "agentls.ask"

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
        from agentls.lsp.run_events import LspRunObserver
        from agentls.protocol.commands import AskFinished, AskParams, AskStarted

        params = parse(AskParams, args, ASK)
        try:
            root = await ls.root_for_async(params.uri)
            conversation = await ls.conversation_for_async(params.session_id, root)
        except JsonRpcInvalidParams as exc:
            raise JsonRpcInvalidParams(message=for_editors(exc.message)) from None
        prompt = await with_editor_context(ls, conversation.relative, params)
        observer = LspRunObserver(ls, conversation.session_id, params.prompt)
        observer.show_cost = conversation.shows_cost
        approver = LspApprover(
            ls.editor, session_id=conversation.session_id, emit=observer.edit, origin_uri=params.uri
        )
        from agentls.conversation.one_session import SessionBusy  # loaded: the session opened
        from agentls.lsp.ask_guidance import folder_of, with_guidance
        from agentls.session.transcript import write_transcript

        try:
            handle = await conversation.start(
                prompt, approver=approver, observer=observer, folder=folder_of(params.uri)
            )
        except SessionBusy as exc:
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        observer.run_id = handle.run_id
        observer.title = with_guidance(observer.title, handle.guidance.lines())
        observer.run_started()
        link = ls.link_of(conversation.session_id)
        if link is not None:
            link.attach(observer.edit)  # bound to the session when it opened
        ls.last_session = conversation.session_id
        ls.runs[handle.run_id] = handle
        handle.task.add_done_callback(lambda _: ls.runs.pop(handle.run_id, None))
        handle.task.add_done_callback(  # rendering reads the whole log: off the event loop
            lambda _: _in_thread(write_transcript, ls.store, conversation.session_id)
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


def _in_thread(function: Any, *args: Any) -> None:
    """Run ``function`` on a worker thread; what it raises is logged, never lost."""

    def done(future: asyncio.Future[Any]) -> None:
        if future.exception() is not None:
            logging.getLogger(__name__).warning("%s: %s", function.__name__, future.exception())

    asyncio.get_running_loop().run_in_executor(None, function, *args).add_done_callback(done)


async def with_editor_context(
    server: AgentServer, relative: Callable[[str], str], params: AskParams
) -> str:
    """The prompt plus the file and selection it was asked about, if any."""
    from agentls.conversation.prompt_context import LookingAt, Selection, prompt_with_context

    if params.uri is None:
        return params.prompt
    path = Path(to_fs_path(params.uri) or "")
    try:
        rel = relative(str(path))
    except Exception:
        return params.prompt
    if params.range is None:
        return prompt_with_context([params.prompt, LookingAt(rel)])
    first, last = params.range.start.line, params.range.end.line
    lines = (await server.editor.document_lines(params.uri))[first : last + 1]
    return prompt_with_context([params.prompt, Selection(rel, first + 1, last + 1, "".join(lines))])
