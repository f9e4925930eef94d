"""The steps of an edit in the editor, for one file (`lsp_workspace.py`) or several
(`batch_edits.py`): what a file holds now, one `workspace/applyEdit`, what landed
in the buffer, and the disk made to hold it.

Open documents are read from the editor's document store (unsaved text and
version), closed ones from disk.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace import TextDocument

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.contracts.waiting import within
from agentls.lsp.editor.protocols import EditorClient
from agentls.lsp.files import edits
from agentls.lsp.files.disk import OffLoopDisk
from agentls.lsp.files.session_link import SessionLink
from agentls.workspace.interface import WriteOutcome

# How long to wait for the editor's didChange/didOpen after it applied an edit.
LANDING_SECONDS = 1.0


class EditSteps:
    def __init__(self, editor: EditorClient, disk: OffLoopDisk, link: SessionLink) -> None:
        self._editor = editor
        self._disk = disk
        self._link = link

    @property
    def editor(self) -> EditorClient:
        return self._editor

    @property
    def disk(self) -> OffLoopDisk:
        return self._disk

    @property
    def session_id(self) -> str:
        return self._link.session_id

    def relative(self, path: str) -> str:
        return self._disk.relative(path)

    def uri(self, rel: str) -> str:
        root = self._disk.root
        return from_fs_path(str(root / rel)) or (root / rel).as_uri()

    def open_document(self, rel: str) -> TextDocument | None:
        doc: TextDocument | None = self._editor.documents.text_documents.get(self.uri(rel))
        return doc

    def needs_review(self, *rels: str) -> bool:
        return self._link.needs_review(*rels)

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        self._link.edit(kind, payload)

    def client_saves_edits(self) -> bool:
        """The client's agentls script saves the buffers an accepted edit touched
        (experimental capability `agentls.savesEdits`)."""
        return self._editor.saves_edits()

    async def current_text(
        self, rel: str, doc: TextDocument | None
    ) -> tuple[str, str | None] | None:
        """The text and version the file has now (the buffer's when open); None: no file."""
        if doc is not None:
            return doc.source, f"buffer:{doc.version}"
        version = await self._disk.version(rel)
        if version is None:
            return None
        snapshot = await self._disk.read(rel)
        try:
            return snapshot.data.decode("utf-8"), snapshot.version
        except UnicodeDecodeError:
            raise ToolError(ErrorCode.INVALID_INPUT, f"{rel} is not a UTF-8 text file") from None

    async def write_closed(
        self, rel: str, new_text: str, version: str | None, summary: str
    ) -> WriteOutcome:
        """A file no buffer follows, written on disk."""
        self.emit("edit_proposed", {"path": rel, "summary": summary, "review": False})
        written = await self._disk.write(
            rel, new_text, expected_version=version, create=version is None
        )
        self.emit("edit_applied", {"path": rel, "summary": summary, "changed": False})
        return written

    async def save(self, rel: str, text: str) -> None:
        """Make the disk hold what the buffer now holds, unless the client saved it."""
        data = text.encode("utf-8")
        on_disk = await self._disk.current_bytes(rel)
        if on_disk == data:
            return
        await self._disk.write(rel, text, expected_version=None, create=on_disk is None)

    async def apply(
        self,
        rel: str,
        doc: TextDocument | None,
        old_text: str,
        new_text: str,
        create: bool,
        annotate: bool,
        summary: str,
    ) -> WriteOutcome:
        """One file's edit sent as `workspace/applyEdit`, and what the buffer then holds."""
        params = self._apply_params(rel, doc, old_text, new_text, create, annotate, summary)
        self.emit("edit_proposed", {"path": rel, "summary": summary, "review": annotate})
        answer = await self._editor.apply_edit(
            params, self._editor.settings.limits.approval_timeout_seconds, "applyEdit"
        )
        if answer is None or not answer.applied:
            reason = "the editor did not answer" if answer is None else "the person rejected it"
            if answer is not None and answer.failure_reason:
                reason = answer.failure_reason
            self.emit("edit_rejected", {"path": rel, "reason": reason})
            return WriteOutcome(False, reason)
        landed, landed_version = await self.landed(rel, old_text, new_text)
        self.emit("edit_applied", {"path": rel, "summary": summary, "changed": landed is not None})
        return WriteOutcome(True, "", landed=landed, version=landed_version)

    def _apply_params(
        self,
        rel: str,
        doc: TextDocument | None,
        old_text: str,
        new_text: str,
        create: bool,
        annotate: bool,
        summary: str,
    ) -> types.ApplyWorkspaceEditParams:
        uri = self.uri(rel)
        codec = self._editor.documents.position_codec
        hunks = edits.text_edits(old_text, new_text, codec.client_num_units, annotated=annotate)
        changes: list[Any] = []
        if create and self._editor.creates_files():
            changes.append(
                types.CreateFile(
                    uri,
                    options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False),
                    annotation_id=edits.ANNOTATION_ID if annotate else None,
                )
            )
        identifier = types.OptionalVersionedTextDocumentIdentifier(
            uri, doc.version if doc is not None else None
        )
        changes.append(types.TextDocumentEdit(identifier, hunks))
        edit = types.WorkspaceEdit(document_changes=changes)
        if annotate:
            edit.change_annotations = edits.annotation("agentls", summary)
        return types.ApplyWorkspaceEditParams(edit, label=f"agentls: {summary}")

    async def landed(self, rel: str, before: str, proposed: str) -> tuple[str | None, str | None]:
        """What the file holds once the editor has applied the edit (None: as proposed).

        An editor may tell of the change later (eglot waits until the person
        is idle): a buffer still holding the text from before is taken at the
        editor's word, as applied."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LANDING_SECONDS
        changed = self._editor.documents_changed
        async with changed:
            while True:
                doc = self.open_document(rel)
                if doc is not None and doc.source == proposed:
                    return None, f"buffer:{doc.version}"
                left = deadline - loop.time()
                if left <= 0:
                    break
                try:
                    await within(changed.wait(), left)
                except TimeoutError:
                    break
        doc = self.open_document(rel)
        if doc is not None and doc.source != before:
            return doc.source, f"buffer:{doc.version}"
        # Not told yet, or applied to a buffer we were not told about.
        return None, None
