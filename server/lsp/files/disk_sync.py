"""A plain client's open buffer: an accepted edit reaches the disk through the editor's own save.

A plain client (no agentls script) leaves an applied edit as a modified
buffer. Had the server written the file behind it, Neovim would warn W12 and
ask before `:w`, Emacs would ask "changed since visited or saved" at the next
save, and Kate would show its "modified on disk" bar (its digest of the file
no longer matches). No LSP message makes an editor save, so when the person
reviewed the edit and the client sends `didSave`, the server asks them in one
line to save and waits for that save (at most `approvalTimeoutSeconds`) before
the next tool runs; only if it does not come does it write the same text
itself, and that editor's warning then follows.

Undo of an open buffer follows the same rule, but its command answers at once
(eglot blocks Emacs while a command is open, so the person could not save):
the save is awaited in the background, and the next tool that reads the disk
or writes waits for it first (`settled`).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from agentls.contracts.waiting import within
from agentls.lsp.editor.protocols import SavesThroughEditor

if TYPE_CHECKING:  # the files themselves load with the core, after `initialize`
    from agentls.workspace.local import LocalWorkspace

log = logging.getLogger(__name__)
Emit = Callable[[str, dict[str, Any]], None]

# What the buffer holds, as the one-line request names it.
ACCEPTED_EDIT = "the accepted edit"
UNDONE = "the undo"

# How often a wait looks again at the disk and the buffer (a save it was not told of).
RECHECK_SECONDS = 1.0


class _Saves:
    """The editor's didSave notifications, for waits on them."""

    def __init__(self) -> None:
        self.changed = asyncio.Condition()
        self.count: dict[str, int] = {}
        # Undone buffers waiting for their save, and the files each one names.
        self.undos: dict[asyncio.Task[str], list[str]] = {}

    async def note(self, uri: str) -> None:
        async with self.changed:
            self.count[uri] = self.count.get(uri, 0) + 1
            self.changed.notify_all()


_SAVES: weakref.WeakKeyDictionary[object, _Saves] = weakref.WeakKeyDictionary()


def _saves_of(editor: SavesThroughEditor) -> _Saves:
    found = _SAVES.get(editor)
    if found is None:
        found = _SAVES[editor] = _Saves()
    return found


def register(server: LanguageServer, editor: SavesThroughEditor) -> None:
    """Listen for didSave (registering it makes the server ask clients for it)."""

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        await _saves_of(editor).note(params.text_document.uri)


def waits_for_save(editor: SavesThroughEditor) -> bool:
    """A plain client that tells of its saves: the person's save can carry the edit."""
    if editor.saves_edits():
        return False  # the client's script saves by itself
    capabilities = getattr(editor, "capabilities", None)
    document = getattr(capabilities, "text_document", None)
    sync = getattr(document, "synchronization", None)
    return getattr(sync, "did_save", None) is True


def unsaved_note(rel: str) -> str:
    return (
        f"{rel} has unsaved changes in the editor, so the edit joins them in the buffer and "
        "is not saved: commands see the file on disk until the person saves it."
    )


def save_request(rels: Sequence[str], seconds: float, what: str = ACCEPTED_EDIT) -> str:
    names = ", ".join(rels)
    holds, them = ("holds", "it") if len(rels) == 1 else ("hold", "them")
    return (
        f"agentls: {names} {holds} {what}; save {them} to go on "
        f"(after {seconds:g} s agentls writes {them} itself)"
    )


@dataclass(frozen=True)
class Pending:
    """An open buffer that holds an accepted edit, and the text the disk should get."""

    rel: str
    uri: str
    text: str


async def through_the_editors_save(
    editor: SavesThroughEditor,
    disk: LocalWorkspace,
    files: Sequence[Pending],
    emit: Emit | None = None,
    *,
    what: str = ACCEPTED_EDIT,
) -> str:
    """Wait for the person's saves to put each file's text on disk; at the end of the
    wait write the ones still missing. Returns what the model should hear ("" when
    all went as asked). ``emit`` tells the run (`waiting_for_save`)."""
    waiting = [f for f in files if await disk.current_bytes(f.rel) != f.text.encode("utf-8")]
    if not waiting:
        return ""
    seconds = editor.settings.limits.approval_timeout_seconds
    rels = [f.rel for f in waiting]
    editor.tell(save_request(rels, seconds, what))
    if emit is not None:
        emit("waiting_for_save", {"paths": rels, "seconds": seconds})
    saves = _saves_of(editor)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    notes: list[str] = []
    written: list[str] = []
    for pending in waiting:
        data = pending.text.encode("utf-8")

        async def landed(rel: str = pending.rel, data: bytes = data) -> bool:
            return await disk.current_bytes(rel) == data

        saved = await _wait(editor, saves, pending.uri, deadline - loop.time(), landed)
        on_disk = await disk.current_bytes(pending.rel)
        if on_disk == data:
            continue
        if saved:
            notes.append(
                f"The person saved {pending.rel} with other text than your edit left in it; "
                "read it again before relying on it."
            )
            continue
        await disk.write(pending.rel, pending.text, expected_version=None, create=on_disk is None)
        written.append(pending.rel)
    if written:
        editor.tell(
            f"agentls: wrote {', '.join(written)} itself (no save came); the editor may say "
            "the file changed on disk: the buffer holds the same text",
            types.MessageType.Warning,
        )
    return " ".join(notes)


def after_undo(editor: SavesThroughEditor, disk: LocalWorkspace, files: Sequence[Pending]) -> None:
    """Undone open buffers reach the disk through the person's save, awaited in the
    background (the undo command has answered); `settled` waits for it."""
    undos = _saves_of(editor).undos
    task = asyncio.ensure_future(through_the_editors_save(editor, disk, files, what=UNDONE))
    undos[task] = [f.rel for f in files]
    task.add_done_callback(_forget(undos))


def _forget(undos: dict[asyncio.Task[str], list[str]]) -> Callable[[asyncio.Task[str]], None]:
    def done(task: asyncio.Task[str]) -> None:
        undos.pop(task, None)
        if not task.cancelled() and task.exception() is not None:
            log.warning("an undone buffer did not reach the disk: %s", task.exception())

    return done


async def settled(editor: SavesThroughEditor, emit: Emit | None = None) -> None:
    """Once every undone buffer is on disk (saved, or written when the wait ran out);
    ``emit`` tells the run it waits (`waiting_for_save`)."""
    found = _SAVES.get(editor)
    if found is None or not found.undos:
        return
    if emit is not None:
        paths = sorted({rel for rels in found.undos.values() for rel in rels})
        seconds = editor.settings.limits.approval_timeout_seconds
        emit("waiting_for_save", {"paths": paths, "seconds": seconds})
    await asyncio.wait(list(found.undos))


async def _wait(
    editor: SavesThroughEditor,
    saves: _Saves,
    uri: str,
    seconds: float,
    on_disk: Callable[[], Awaitable[bool]],
) -> bool:
    """True once the editor saved ``uri`` (or the disk holds the text: a save it did
    not tell of); False when the time ran out or the buffer was closed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    async with saves.changed:
        before = saves.count.get(uri, 0)
        while saves.count.get(uri, 0) == before:
            if await on_disk():
                return True
            if uri not in editor.documents.text_documents:
                return False  # closed unsaved: the accepted edit goes to disk all the same
            left = deadline - loop.time()
            if left <= 0:
                return False
            try:
                await within(saves.changed.wait(), min(left, RECHECK_SECONDS))
            except TimeoutError:
                continue
    return True
