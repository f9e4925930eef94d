"""`agentls.ask` {"prompt", "uri"?, "range"?, "sessionId"?, "wait"?, "images"?}: a run in
a session.

The run's events go to the editor as `agentls/event` (`run_events.py`); with
`wait` the request answers when the run ends, and `$/cancelRequest` for it
ends the run (`wire/agent_protocol.py`). The prompt carries the file and lines the
person asked about (`conversation/prompt_context.py`) and its images (files read on a
worker thread, or sent inline as base64); an image the model would not take is refused
with InvalidParams before anything is made or sent.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
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
    from agentls.conversation.command_files import AskedPrompt
    from agentls.conversation.prompt_images import PromptImage
    from agentls.protocol.commands import AskImage, AskParams

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
            asked = await _asked(ls, params, root)  # before a new session is made
            images = await asyncio.to_thread(prompt_images, params.images, root)
            conversation = await ls.conversation_for_async(params.session_id, root, images)
        except JsonRpcInvalidParams as exc:
            raise JsonRpcInvalidParams(message=for_editors(exc.message)) from None
        prompt = await with_editor_context(ls, conversation.relative, params, asked.text)
        observer = LspRunObserver(ls, conversation.session_id, params.prompt)
        observer.show_cost = conversation.shows_cost
        approver = LspApprover(
            ls.editor, session_id=conversation.session_id, emit=observer.edit, origin_uri=params.uri
        )
        from agentls.contracts.errors import ConfigError
        from agentls.conversation.one_session import SessionBusy  # loaded: the session opened
        from agentls.lsp.ask_guidance import folder_of, with_guidance
        from agentls.session.transcript import write_transcript

        try:
            handle = await conversation.start(
                prompt, approver=approver, observer=observer, folder=folder_of(params.uri),
                command=asked.command, images=images,
            )  # fmt: skip
        except (SessionBusy, ConfigError) as exc:  # ConfigError: an image, a reasoning level
            raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
        observer.run_id = handle.run_id
        told = [*asked.lines(), *handle.guidance.lines()]
        observer.title = with_guidance(observer.title, told)
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


def prompt_images(wanted: list[AskImage], root: Path) -> list[PromptImage]:
    """The ask's images as their bytes (blocking: files are read); InvalidParams saying
    which one cannot be had."""
    from agentls.contracts.errors import ConfigError
    from agentls.conversation.prompt_images import PromptImage, read_image_file

    images = []
    for number, image in enumerate(wanted, start=1):
        if image.path is not None:
            path = root / Path(image.path).expanduser()  # an absolute path stays itself
            try:
                read = read_image_file(path)
            except ConfigError as exc:  # ImageRefused
                raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None
            images.append(PromptImage(read.data, image.name or image.path))
            continue
        name = image.name or f"image {number}"
        try:
            data = base64.b64decode(image.data or "", validate=True)
        except (binascii.Error, ValueError):
            raise JsonRpcInvalidParams(message=f"agentls: {name}: its data is not base64") from None
        images.append(PromptImage(data, name))
    return images


def _in_thread(function: Any, *args: Any) -> None:
    """Run ``function`` on a worker thread; what it raises is logged, never lost."""

    def done(future: asyncio.Future[Any]) -> None:
        if future.exception() is not None:
            logging.getLogger(__name__).warning("%s: %s", function.__name__, future.exception())

    asyncio.get_running_loop().run_in_executor(None, function, *args).add_done_callback(done)


async def _asked(ls: AgentServer, params: AskParams, root: Path) -> AskedPrompt:
    """The prompt as the model is given it: a `/name` prompt expanded from its command file,
    in the open session's folder or ``root``."""
    from agentls.conversation.command_files import UnknownPromptCommand

    known = ls.manager.get(params.session_id) if params.session_id else None
    where = known.root if known is not None else root
    try:
        return await ls.manager.prompt_async(where, params.prompt)
    except UnknownPromptCommand as exc:
        raise JsonRpcInvalidParams(message=f"agentls: {exc}") from None


async def with_editor_context(
    server: AgentServer, relative: Callable[[str], str], params: AskParams, words: str
) -> str:
    """``words`` (the prompt, expanded) plus the file and selection it was asked about."""
    from agentls.conversation.prompt_context import LookingAt, Selection, prompt_with_context

    if params.uri is None:
        return words
    path = Path(to_fs_path(params.uri) or "")
    try:
        rel = relative(str(path))
    except Exception:
        return words
    if params.range is None:
        return prompt_with_context([words, LookingAt(rel)])
    first, last = params.range.start.line, params.range.end.line
    lines = (await server.editor.document_lines(params.uri))[first : last + 1]
    return prompt_with_context([words, Selection(rel, first + 1, last + 1, "".join(lines))])
