"""A change of several files (a rename) in the editor: one review, one applyEdit, then disk.

Every file is checked against the version it was read at before anything is
asked; the person reviews the whole change once (all diffs); open buffers get
it in one `workspace/applyEdit` (the editor's undo works, and a refusal
changes nothing); files not open in a plain editor are written after that,
all or nothing. The disk then follows the rules of a single edit
(docs/protocol.md, "Accepted means on disk").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.lsp.asking.review import Proposal, review_edit
from agentls.lsp.files import disk_sync, edits
from agentls.lsp.files.edit_steps import EditSteps
from agentls.workspace.interface import ChangesOutcome, WriteOutcome
from agentls.workspace.language import FileChange
from agentls.workspace.local import check_changes


@dataclass(frozen=True)
class _File:
    rel: str
    uri: str
    doc: TextDocument | None
    old: str
    new: str
    version: str | None
    clean: bool  # no unsaved changes of the person's own
    summary: str


async def apply_changes(
    ws: EditSteps, changes: Sequence[FileChange], summary: str
) -> ChangesOutcome:
    files = await _plan(ws, changes)
    notes = [disk_sync.unsaved_note(f.rel) for f in files if not f.clean]
    route = ws.editor.route("review") if ws.needs_review(*(f.rel for f in files)) else None
    annotate = route == "editor"
    question = None
    if route in ("prompt", "codeAction"):
        first, *rest = files
        proposal = Proposal(
            first.rel, first.uri, first.old, first.new, summary, ws.session_id,
            " ".join(notes), others=tuple((f.rel, f.old, f.new) for f in rest),
        )  # fmt: skip
        review = await review_edit(ws.editor, proposal, ws.emit)
        question = review.question
        if not review.approved:
            for f in files:
                ws.emit("edit_rejected", {"path": f.rel, "reason": review.reason})
            return ChangesOutcome(False, review.reason)

    def answered() -> None:
        if question is not None:  # the person's agentls.answer may return now
            question.settled.set()

    try:
        return await _apply(ws, files, annotate, route is not None, notes, answered)
    finally:
        answered()


async def _plan(ws: EditSteps, changes: Sequence[FileChange]) -> list[_File]:
    files = []
    for rel, change in check_changes(ws.relative, changes):
        doc = ws.open_document(rel)
        current = await ws.current_text(rel, doc)
        if current is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist (any more)")
        old, version = current
        if version is not None and change.version != version:
            raise ToolError(
                ErrorCode.CONFLICT,
                f"{rel} changed in the editor since you read it; read it again "
                "(nothing was changed)",
                retryable=True,
            )
        clean = doc is None or await ws.disk.current_bytes(rel) == old.encode("utf-8")
        added, removed = edits.change_counts(old, change.new_text)
        line = f"edit {rel} (+{added} −{removed} lines)"
        files.append(_File(rel, ws.uri(rel), doc, old, change.new_text, version, clean, line))
    return files


async def _apply(
    ws: EditSteps,
    files: list[_File],
    annotate: bool,
    reviewed: bool,
    notes: list[str],
    answered: Callable[[], None],
) -> ChangesOutcome:
    # Files no buffer follows are written (after the editor took the rest): a plain
    # editor then has no modified buffer that would clash with the disk.
    direct = [] if annotate or ws.client_saves_edits() else [f for f in files if f.doc is None]
    through = [f for f in files if f not in direct]
    for f in files:
        ws.emit("edit_proposed", {"path": f.rel, "summary": f.summary, "review": annotate})
    outcomes: dict[str, WriteOutcome] = {}
    if through:
        answer = await ws.editor.apply_edit(
            _params(ws, through, annotate),
            ws.editor.settings.limits.approval_timeout_seconds,
            "applyEdit",
        )
        if answer is None or not answer.applied:
            reason = "the editor did not answer" if answer is None else "the person rejected it"
            if answer is not None and answer.failure_reason:
                reason = answer.failure_reason
            for f in files:
                ws.emit("edit_rejected", {"path": f.rel, "reason": reason})
            return ChangesOutcome(False, reason)
    if direct:
        written = await ws.disk.apply_changes(
            [FileChange(f.rel, f.old, f.new, f.version or "") for f in direct], "direct"
        )
        outcomes.update(written.files)
    answered()  # the change is in: a save the person is asked for comes after this
    pending: list[disk_sync.Pending] = []
    saved: list[tuple[_File, str]] = []
    for f in through:
        landed, version = await ws.landed(f.rel, f.old, f.new)
        outcomes[f.rel] = WriteOutcome(True, "", landed=landed, version=version)
        text = landed if landed is not None else f.new
        if not f.clean:
            continue  # the person's own unsaved changes: never saved behind their back
        if f.doc is not None and reviewed and disk_sync.waits_for_save(ws.editor):
            pending.append(disk_sync.Pending(f.rel, f.uri, text))
        else:
            saved.append((f, text))
    for f in files:
        changed = outcomes[f.rel].landed is not None
        ws.emit("edit_applied", {"path": f.rel, "summary": f.summary, "changed": changed})
    said = list(notes)
    try:
        for f, text in saved:
            await ws.save(f.rel, text)
        told = await disk_sync.through_the_editors_save(ws.editor, ws.disk, pending, ws.emit)
        if told:
            said.append(told)
    except ToolError as exc:  # the change is in the buffers all the same
        said.append(f"The change is in the editor's buffers, but not all on disk ({exc}).")
    return ChangesOutcome(True, " ".join(said), outcomes)


def _params(ws: EditSteps, files: list[_File], annotate: bool) -> types.ApplyWorkspaceEditParams:
    codec = ws.editor.documents.position_codec
    document_changes: list[Any] = []
    for f in files:
        hunks = edits.text_edits(f.old, f.new, codec.client_num_units, annotated=annotate)
        identifier = types.OptionalVersionedTextDocumentIdentifier(
            f.uri, f.doc.version if f.doc is not None else None
        )
        document_changes.append(types.TextDocumentEdit(identifier, hunks))
    edit = types.WorkspaceEdit(document_changes=document_changes)
    label = f"agentls: {len(files)} file(s): " + ", ".join(f.rel for f in files)
    if annotate:
        edit.change_annotations = edits.annotation("agentls", label)
    return types.ApplyWorkspaceEditParams(edit, label=label)
