"""LspWorkspace: the workspace the tools see in the language server.

Open documents are read from the editor's buffers (unsaved text and version),
closed ones from disk (`disk.py`, off the event loop). An accepted edit is on
disk before the next tool runs (docs/protocol.md, "Edits"): clients with an
agentls script save what they applied; for other clients the server writes a
file that is not open itself, and an open buffer's new text after the editor
applied it (`edit_steps.py`, `disk_sync.py`). A buffer holding the person's own
unsaved changes is never saved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lsprotocol import types
from pygls.workspace import TextDocument

from agentls.contracts.processes import ProcessInfo, ProcessRead
from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.lsp.asking.review import Proposal, review_edit
from agentls.lsp.editor.protocols import EditorClient
from agentls.lsp.files import batch_edits, disk_sync, edits
from agentls.lsp.files.disk import OffLoopDisk
from agentls.lsp.files.disk_sync import unsaved_note
from agentls.lsp.files.edit_steps import EditSteps
from agentls.lsp.files.session_link import SessionLink
from agentls.lsp.questions.board import Question
from agentls.workspace.interface import (
    BackgroundProcesses,
    ChangesOutcome,
    CommandGrant,
    CommandResult,
    FileSnapshot,
    Listing,
    SearchResult,
    WriteOutcome,
)
from agentls.workspace.language import FileChange
from agentls.workspace.lines import FileLines, LineWindow, scan_text
from agentls.workspace.paths import SecretFiles
from agentls.workspace.sandbox import SandboxSettings

__all__ = ["LspWorkspace", "unsaved_note"]


@dataclass(frozen=True)
class _Edit:
    """One file's edit as `write` was asked for it, with what the file held."""

    rel: str
    doc: TextDocument | None
    old_text: str
    new_text: str
    version: str | None
    create: bool
    summary: str


class LspWorkspace:
    def __init__(
        self, editor: EditorClient, root: Path, *, link: SessionLink | None = None
    ) -> None:
        self.editor = editor
        self.link = link if link is not None else SessionLink()  # session id, policy, run
        self._disk = OffLoopDisk(root)  # files read and written off the event loop
        self._steps = EditSteps(editor, self._disk, self.link)

    def use_sandbox(self, settings: SandboxSettings) -> None:
        self._disk.use_sandbox(settings)

    @property
    def root(self) -> Path:
        return self._disk.root

    @property
    def secrets(self) -> SecretFiles:
        return self._disk.secrets

    def relative(self, path: str) -> str:
        return self._disk.relative(path)

    async def read(self, path: str) -> FileSnapshot:
        rel = self.relative(path)
        doc = self._steps.open_document(rel)
        if doc is not None:
            return FileSnapshot(rel, doc.source.encode("utf-8"), f"buffer:{doc.version}")
        return await self._disk.read(rel)

    async def read_lines(self, path: str, window: LineWindow) -> FileLines:
        rel = self.relative(path)
        doc = self._steps.open_document(rel)
        if doc is not None:  # the buffer's text as it is now, scanned off the loop
            version = f"buffer:{doc.version}"
            return await asyncio.to_thread(scan_text, rel, version, doc.source, window)
        return await self._disk.read_lines(rel, window)

    async def version(self, path: str) -> str | None:
        try:
            rel = self.relative(path)
        except ToolError:  # a link now leads out of the workspace: no such file in it
            return None
        doc = self._steps.open_document(rel)
        if doc is not None:
            return f"buffer:{doc.version}"
        return await self._disk.version(rel)

    async def list_files(self, path: str, pattern: str | None, limit: int) -> Listing:
        return await self._disk.list_files(path, pattern, limit)

    async def search(self, pattern: str, path: str, glob: str | None, limit: int) -> SearchResult:
        return await self._disk.search(pattern, path, glob, limit)

    async def run_command(
        self, grant: CommandGrant, timeout_seconds: float, output_limit: int
    ) -> CommandResult:
        await disk_sync.settled(self.editor, self._steps.emit)  # an undone buffer on disk first
        result = await self._disk.run_command(grant, timeout_seconds, output_limit)
        unsaved = await self.unsaved_paths()
        if not unsaved:
            return result
        names = ", ".join(unsaved[:5]) + (" …" if len(unsaved) > 5 else "")
        note = (
            f"\n[note: {len(unsaved)} file(s) have unsaved changes in the editor ({names}); "
            "the command saw the versions on disk]"
        )
        return CommandResult(
            result.exit_code, result.output + note, result.timed_out, result.truncated_bytes
        )

    async def start_command(self, grant: CommandGrant, wait_seconds: float) -> ProcessRead:
        await disk_sync.settled(self.editor, self._steps.emit)  # an undone buffer on disk first
        return await self._disk.start_command(grant, wait_seconds)

    @property
    def processes(self) -> BackgroundProcesses:
        return self._disk.processes

    async def end_commands(self) -> list[ProcessInfo]:
        return await self._disk.end_commands()

    def kill_commands(self) -> None:
        self._disk.kill_commands()

    async def current_bytes(self, path: str) -> bytes | None:
        rel = self.relative(path)
        doc = self._steps.open_document(rel)
        if doc is not None:
            return doc.source.encode("utf-8")
        return await self._disk.current_bytes(rel)

    async def restore_files(self, files: list[tuple[str, bytes | None]]) -> None:
        """Open documents go back through applyEdit (so the editor's undo works);
        closed files are put back on disk, where the editor would read them."""
        changes: list[types.TextDocumentEdit] = []
        on_disk = []
        follow = []  # open and saved: once the editor has it, the disk gets it too
        for path, content in files:
            rel = self.relative(path)
            doc = self._steps.open_document(rel)
            if doc is None or content is None:
                on_disk.append((rel, content))
                continue
            if await self._disk.current_bytes(rel) == doc.source.encode("utf-8"):
                follow.append((rel, content))
            text = content.decode("utf-8", "replace")
            hunks = edits.text_edits(
                doc.source, text, self.editor.documents.position_codec.client_num_units,
                annotated=False,
            )  # fmt: skip
            identifier = types.OptionalVersionedTextDocumentIdentifier(
                self._steps.uri(rel), doc.version
            )
            changes.append(types.TextDocumentEdit(identifier, hunks))
        if changes:
            params = types.ApplyWorkspaceEditParams(
                types.WorkspaceEdit(document_changes=changes), label="agentls: undo"
            )
            answer = await self.editor.apply_edit(params, 30.0, "applyEdit (undo)")
            if answer is None or not answer.applied:
                raise ToolError(ErrorCode.CONFLICT, "the editor did not apply the undo")
            if follow and disk_sync.waits_for_save(self.editor):  # the person's save
                disk_sync.after_undo(self.editor, self._disk, [
                    disk_sync.Pending(rel, self._steps.uri(rel), content.decode("utf-8", "replace"))
                    for rel, content in follow
                ])  # fmt: skip
                follow = []
            for rel, content in follow:
                await self._steps.save(rel, content.decode("utf-8", "replace"))
        await self._disk.restore_files(on_disk)

    async def unsaved_buffers(self) -> dict[str, str | None]:
        """Open documents whose text is not on disk yet, for checkpoints."""
        return dict(sorted((await self._unsaved()).items()))

    async def unsaved_paths(self) -> list[str]:
        """Open documents under the root whose text differs from the file on disk."""
        return sorted(await self._unsaved())

    async def _unsaved(self) -> dict[str, str]:
        # The buffers are taken here, on the event loop; the files are read on a thread.
        buffers: dict[str, str] = {}
        for doc in list(self.editor.documents.text_documents.values()):
            path = Path(doc.path)
            if path.is_relative_to(self.root):
                buffers[path.relative_to(self.root).as_posix()] = doc.source
        if not buffers:
            return {}
        return await asyncio.to_thread(_not_on_disk, self.root, buffers)

    async def write(
        self, path: str, new_text: str, *, expected_version: str | None, create: bool
    ) -> WriteOutcome:
        await disk_sync.settled(self.editor, self._steps.emit)  # an undone buffer on disk first
        rel = self.relative(path)
        doc = self._steps.open_document(rel)
        current = await self._current_for_write(rel, doc, expected_version, create)
        old_text, version = current if current is not None else ("", None)
        if current is not None and old_text == new_text:
            return WriteOutcome(True, "(the file already held this text)", version=version)
        added, removed = edits.change_counts(old_text, new_text)
        summary = f"{'create' if create else 'edit'} {rel} (+{added} −{removed} lines)"
        edit = _Edit(rel, doc, old_text, new_text, version, create, summary)
        # The person's own unsaved changes are never saved behind their back.
        clean = doc is None or await self._disk.current_bytes(rel) == old_text.encode("utf-8")
        note = "" if clean else unsaved_note(rel)
        route = self.editor.route("review") if self._steps.needs_review(rel) else None
        question = None
        if route in ("prompt", "codeAction"):
            proposal = Proposal(
                rel, self._steps.uri(rel), old_text, new_text, summary, self.link.session_id, note
            )
            review = await review_edit(self.editor, proposal, self._steps.emit)
            question = review.question
            if not review.approved:
                self._steps.emit("edit_rejected", {"path": rel, "reason": review.reason})
                return WriteOutcome(False, review.reason)
        try:
            return await self._land(edit, route, clean, note, question)
        finally:
            if question is not None:
                question.settled.set()  # the person's agentls.answer may return now

    async def _current_for_write(
        self, rel: str, doc: TextDocument | None, expected_version: str | None, create: bool
    ) -> tuple[str, str | None] | None:
        """What the file holds now, if the write may go ahead on it."""
        current = await self._steps.current_text(rel, doc)
        if create and current is not None:
            raise ToolError(ErrorCode.CONFLICT, f"{rel} already exists", retryable=True)
        if not create and current is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist (any more)")
        version = current[1] if current is not None else None
        if expected_version is not None and version is not None and expected_version != version:
            raise ToolError(
                ErrorCode.CONFLICT,
                f"{rel} changed in the editor since you read it; read it again",
                retryable=True,
            )
        return current

    async def _land(
        self, edit: _Edit, route: str | None, clean: bool, note: str, question: Question | None
    ) -> WriteOutcome:
        """The accepted edit into the editor, then onto the disk."""
        annotate = route == "editor"
        rel, doc = edit.rel, edit.doc
        if doc is None and not annotate and not self._steps.client_saves_edits():
            # No buffer to follow it: writing the file spares the editor a
            # dirty buffer that would later clash with the disk.
            return await self._steps.write_closed(rel, edit.new_text, edit.version, edit.summary)
        outcome = await self._steps.apply(
            rel, doc, edit.old_text, edit.new_text, edit.create, annotate, edit.summary
        )
        if not outcome.applied:
            return outcome
        if not clean:
            return replace(outcome, message=note)
        if question is not None:
            question.settled.set()  # answered: the person may go on to save
        text = outcome.landed if outcome.landed is not None else edit.new_text
        try:
            if doc is not None and route is not None and disk_sync.waits_for_save(self.editor):
                pending = disk_sync.Pending(rel, self._steps.uri(rel), text)
                said = await disk_sync.through_the_editors_save(
                    self.editor, self._disk, [pending], self._steps.emit
                )
                return replace(outcome, message=said) if said else outcome
            await self._steps.save(rel, text)
        except ToolError as exc:  # the edit is in the buffer all the same
            said = f"The edit is in the editor's buffer, but not on disk ({exc}): "
            return replace(outcome, message=said + "commands see the old file.")
        return outcome

    async def apply_changes(self, changes: Sequence[FileChange], summary: str) -> ChangesOutcome:
        """One review and one applyEdit for every file (batch_edits.py)."""
        await disk_sync.settled(self.editor, self._steps.emit)
        return await batch_edits.apply_changes(self._steps, changes, summary)


def _not_on_disk(root: Path, buffers: dict[str, str]) -> dict[str, str]:
    """The buffers whose file holds other text (or cannot be read as UTF-8)."""
    found = {}
    for rel, text in buffers.items():
        try:
            on_disk: str | None = (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            on_disk = None
        if on_disk != text:
            found[rel] = text
    return found
