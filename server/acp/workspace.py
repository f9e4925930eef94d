"""AcpWorkspace: the files as the ACP client sees them, commands in agentls's sandbox.

Reads go through ``fs/read_text_file`` when the client offers it, so unsaved
buffers are seen. Every change is first shown as a diff on its tool call; in
the modes that review edits the person is asked, and an accepted edit goes
through ``fs/write_text_file`` when offered, else to disk. Versions are content
hashes: the client's buffers have no other version. A file over LARGE_FILE_BYTES on
disk is read from disk alone, with the disk's version (its mtime and size, as the
headless workspace has it): the client would send the whole file as one message,
and hashing it would read it whole at every version check; `read_file` then reads
only its window.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp.interfaces import Client
from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from agentls.acp.permission import UNANSWERED, Choice, PermissionAsker, SessionRules, answer_of
from agentls.acp.toolcalls import locations
from agentls.acp.updates import UpdateStream
from agentls.contracts.processes import ProcessInfo, ProcessRead
from agentls.contracts.running import running_call
from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.permissions.rules import Rule
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
from agentls.workspace.lines import FileLines, LineWindow, scan_bytes
from agentls.workspace.local import LocalWorkspace, check_changes
from agentls.workspace.paths import SecretFiles
from agentls.workspace.sandbox import SandboxSettings

log = logging.getLogger(__name__)
Shown = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent


@dataclass
class ClientFiles:
    """What the client offered in initialize, and how to reach it for one session."""

    client: Client
    session_id: str
    can_read: bool
    can_write: bool


LARGE_FILE_BYTES = 8 << 20


def content_version(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()[:32]


def _written_version(text: str) -> str | None:
    """The version a write leaves; None (asked afresh) for a file read from disk alone."""
    data = text.encode("utf-8")
    return content_version(data) if len(data) <= LARGE_FILE_BYTES else None


class AcpWorkspace:
    def __init__(
        self,
        root: Path,
        files: ClientFiles,
        updates: UpdateStream,
        asker: PermissionAsker,
    ) -> None:
        self._disk = LocalWorkspace(root)
        self.files = files
        self.updates = updates
        self.asker = asker
        # Set once the conversation exists: it says which edits need a review, and keeps
        # what an "always" answer to one means.
        self.session_rules: SessionRules | None = None
        self.cancel_run: Callable[[], object] = lambda: None
        # Calls the gate already asked about (a secret file): one question per call.
        self.approved_calls: set[str] = set()

    def use_sandbox(self, settings: SandboxSettings) -> None:
        self._disk.use_sandbox(settings)

    async def unsaved_buffers(self) -> dict[str, str | None]:
        return {}  # an ACP client's buffers are read through it, never kept unsaved here

    @property
    def root(self) -> Path:
        return self._disk.root

    @property
    def secrets(self) -> SecretFiles:
        return self._disk.secrets

    def relative(self, path: str) -> str:
        return self._disk.relative(path)

    def absolute(self, rel: str) -> str:
        return str(self.root / rel)

    async def read(self, path: str) -> FileSnapshot:
        rel = self.relative(path)
        on_disk = await self._disk.read(rel)  # not_found, directories, devices: as on disk
        data = on_disk.data
        if len(data) > LARGE_FILE_BYTES:
            return on_disk
        if self.files.can_read and _is_text(data):
            text = await self._client_text(rel)
            if text is not None:
                data = text.encode("utf-8")
        return FileSnapshot(rel, data, content_version(data))

    async def _client_text(self, rel: str) -> str | None:
        try:
            answer = await self.files.client.read_text_file(
                self.files.session_id, self.absolute(rel)
            )
        except Exception as exc:  # the editor could not: the disk's copy is the truth
            log.info("fs/read_text_file %s failed (%s); read from disk", rel, exc)
            return None
        return answer.content

    async def read_lines(self, path: str, window: LineWindow) -> FileLines:
        rel = self.relative(path)
        size = await self._disk.file_size(rel)
        if size is not None and size > LARGE_FILE_BYTES:
            return await self._disk.read_lines(rel, window)
        snapshot = await self.read(rel)  # small: the client's buffer, hashed, as read() has it
        return scan_bytes(rel, snapshot.version, snapshot.data, window)

    async def version(self, path: str) -> str | None:
        size = await self._disk.file_size(path)
        if size is None:
            return None
        if size > LARGE_FILE_BYTES:
            return await self._disk.version(path)
        return (await self.read(path)).version

    async def list_files(self, path: str, pattern: str | None, limit: int) -> Listing:
        return await self._disk.list_files(path, pattern, limit)

    async def search(self, pattern: str, path: str, glob: str | None, limit: int) -> SearchResult:
        return await self._disk.search(pattern, path, glob, limit)

    async def run_command(
        self, grant: CommandGrant, timeout_seconds: float, output_limit: int
    ) -> CommandResult:
        return await self._disk.run_command(grant, timeout_seconds, output_limit)

    async def start_command(self, grant: CommandGrant, wait_seconds: float) -> ProcessRead:
        return await self._disk.start_command(grant, wait_seconds)

    @property
    def processes(self) -> BackgroundProcesses:
        return self._disk.processes

    async def end_commands(self) -> list[ProcessInfo]:
        return await self._disk.end_commands()

    def kill_commands(self) -> None:
        self._disk.kill_commands()

    async def current_bytes(self, path: str) -> bytes | None:
        return await self._disk.current_bytes(path)

    async def restore_files(self, files: list[tuple[str, bytes | None]]) -> None:
        await self._disk.restore_files(files)

    async def write(
        self, path: str, new_text: str, *, expected_version: str | None, create: bool
    ) -> WriteOutcome:
        rel = self.relative(path)
        current = await self._current(rel)
        if create and current is not None:
            raise ToolError(ErrorCode.CONFLICT, f"{rel} already exists", retryable=True)
        if not create and current is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist (any more)")
        old_text, version = current if current is not None else (None, None)
        if expected_version is not None and version is not None and expected_version != version:
            raise ToolError(
                ErrorCode.CONFLICT,
                f"{rel} changed since you read it; read it again",
                retryable=True,
            )
        if old_text == new_text:
            return WriteOutcome(True, "no change", version=version)
        call_id, tool = self._show_diff(rel, old_text, new_text)
        rules = None if call_id in self.approved_calls else self._review_rules(tool, rel)
        if rules is not None:
            title = f"Create {rel}" if old_text is None else f"Edit {rel}"
            diff = self._diff(rel, old_text, new_text)
            choice = await self._ask(call_id, title, [rel], [diff], rules)
            if choice.ends_prompt:
                return WriteOutcome(False, _ENDED[choice])
            if not choice.allows:
                return WriteOutcome(False, "the person rejected the edit in the editor")
        self._running(call_id)
        await self._put(rel, new_text, create)
        return WriteOutcome(True, version=_written_version(new_text))

    async def _ask(
        self,
        call_id: str,
        title: str,
        rels: list[str],
        diffs: list[FileEditToolCallContent],
        rules: list[Rule],
    ) -> Choice:
        """The person's word on a change shown as ``diffs``; "always" kept for the session."""
        where = [loc for rel in rels for loc in locations(self.root, {"path": rel}) or []]
        shown: list[Shown] = [*diffs]
        update = ToolCallUpdate(
            tool_call_id=call_id, title=title, kind="edit", status="pending",
            locations=where, content=shown,
        )  # fmt: skip
        choice = await self.asker.ask(update, rules)
        if self.session_rules is not None:
            self.session_rules.take_answer(answer_of(choice), rules)
        if choice.ends_prompt:
            self.cancel_run()
        return choice

    def _running(self, call_id: str) -> None:
        """The change goes ahead: its tool call runs now (a call of its own stays as it is)."""
        if running_call() is not None:
            self.updates.push(
                ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=call_id, status="in_progress"
                )
            )

    async def apply_changes(self, changes: Sequence[FileChange], summary: str) -> ChangesOutcome:
        """Every diff on the call, one permission for all of them, then each file
        written; a write that fails puts back the files already written."""
        files: list[tuple[str, str, str]] = []
        for rel, change in check_changes(self.relative, changes):
            current = await self._current(rel)
            if current is None:
                raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist (any more)")
            old_text, version = current
            if change.version != version:
                raise ToolError(
                    ErrorCode.CONFLICT,
                    f"{rel} changed since you read it; read it again (nothing was changed)",
                    retryable=True,
                )
            files.append((rel, old_text, change.new_text))
        diffs = [self._diff(rel, old, new) for rel, old, new in files]
        call_id, tool = self._show_diffs(summary, diffs, [rel for rel, _, _ in files])
        if call_id not in self.approved_calls:
            rels = [rel for rel, _, _ in files]
            asked = [self._review_rules(tool, rel) for rel in rels]
            if any(rules is not None for rules in asked):
                rules = list(dict.fromkeys(r for rs in asked if rs is not None for r in rs))
                choice = await self._ask(call_id, _edit_title(rels), rels, diffs, rules)
                if choice.ends_prompt:
                    return ChangesOutcome(False, _ENDED[choice])
                if not choice.allows:
                    return ChangesOutcome(False, "the person rejected the change in the editor")
        self._running(call_id)
        done: dict[str, WriteOutcome] = {}
        for rel, _, new_text in files:
            try:
                await self._put(rel, new_text, create=False)
            except ToolError as exc:
                for back, old, _ in files:
                    if back in done:
                        await self._put(back, old, create=False)
                raise ToolError(exc.code, f"{exc} (nothing was changed)") from None
            done[rel] = WriteOutcome(True, version=_written_version(new_text))
        return ChangesOutcome(True, files=done)

    def _show_diffs(
        self, summary: str, diffs: list[FileEditToolCallContent], rels: list[str]
    ) -> tuple[str, str]:
        """All diffs on the call that proposes them (or on a call of their own)."""
        current = running_call()
        if current is not None:
            call_id, tool = current.call_id, current.name
            self.updates.push(
                ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=call_id, content=list(diffs)
                )
            )
            return call_id, tool
        call_id = f"edit-{secrets.token_hex(4)}"
        where = [loc for rel in rels for loc in locations(self.root, {"path": rel}) or []]
        self.updates.push(
            ToolCallStart(
                session_update="tool_call", tool_call_id=call_id, title=summary, kind="edit",
                status="pending", content=list(diffs), locations=where,
            )
        )  # fmt: skip
        return call_id, "write_file"

    async def _current(self, rel: str) -> tuple[str, str] | None:
        if await self._disk.version(rel) is None:
            return None
        snapshot = await self.read(rel)
        try:
            return snapshot.data.decode("utf-8"), snapshot.version
        except UnicodeDecodeError:
            raise ToolError(ErrorCode.INVALID_INPUT, f"{rel} is not a UTF-8 text file") from None

    def _diff(self, rel: str, old: str | None, new: str) -> FileEditToolCallContent:
        return FileEditToolCallContent(
            type="diff", path=self.absolute(rel), old_text=old, new_text=new
        )

    def _show_diff(self, rel: str, old: str | None, new: str) -> tuple[str, str]:
        """The diff on the call that proposes it (or on a call of its own)."""
        current = running_call()
        diff = self._diff(rel, old, new)
        if current is not None:
            call_id, tool = current.call_id, current.name
            self.updates.push(
                ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=call_id, content=[diff]
                )
            )
            return call_id, tool
        call_id = f"edit-{secrets.token_hex(4)}"
        self.updates.push(
            ToolCallStart(
                session_update="tool_call", tool_call_id=call_id, title=f"edit {rel}", kind="edit",
                status="pending", content=[diff], locations=locations(self.root, {"path": rel}),
            )
        )  # fmt: skip
        return call_id, "write_file"

    def _review_rules(self, tool: str, rel: str) -> list[Rule] | None:
        """The rules "always" would add when the person must review this edit, else None:
        the gate let the edit through to this review, and the session's policy says
        whether a rule or the mode already allows it."""
        if self.session_rules is None:
            return []
        return self.session_rules.review_rules(tool, rel)

    async def _put(self, rel: str, text: str, create: bool) -> None:
        if not self.files.can_write:
            await self._disk.write(rel, text, expected_version=None, create=create)
            return
        try:
            await self.files.client.write_text_file(self.files.session_id, self.absolute(rel), text)
        except Exception as exc:
            raise ToolError(
                ErrorCode.EXECUTION_FAILED, f"the editor could not write {rel}: {exc}"
            ) from None


_ENDED = {Choice.CANCELLED: "the prompt was cancelled", Choice.UNANSWERED: UNANSWERED}


def _edit_title(rels: list[str]) -> str:
    shown = ", ".join(rels[:3])
    return f"Edit {shown}" + (f" and {len(rels) - 3} more files" if len(rels) > 3 else "")


def _is_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\0" not in data[:8192]
