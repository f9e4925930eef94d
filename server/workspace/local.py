"""The headless Workspace: the files on disk under one root, and a local shell."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import stat
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from agentls.contracts.processes import ProcessInfo, ProcessRead
from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace import filesearch, lines, paths
from agentls.workspace.atomic import replace_atomically
from agentls.workspace.commands import SessionCommands
from agentls.workspace.interface import (
    ChangesOutcome,
    CommandGrant,
    CommandResult,
    FileSnapshot,
    Listing,
    SearchResult,
    WriteOutcome,
)
from agentls.workspace.language import FileChange
from agentls.workspace.lines import FileLines, LineWindow
from agentls.workspace.sandbox import SandboxSettings

log = logging.getLogger(__name__)


def version_of(st: os.stat_result) -> str:
    return f"{st.st_mtime_ns}:{st.st_size}"


def _real_dir(root: Path) -> Path:
    """``root.resolve()``, checked to be a directory, with one stat (a session opens one)."""
    real = Path(os.path.realpath(root))
    try:
        is_dir = stat.S_ISDIR(os.stat(real).st_mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # as Path.resolve says it
            raise RuntimeError(f"Symlink loop from {exc.filename!r}") from None
        is_dir = False
    if not is_dir:
        raise ValueError(f"workspace root {real} is not a directory")
    return real


class LocalWorkspace:
    """Implements the Workspace protocol against the local disk.

    ``use_ripgrep`` None picks ripgrep when it is on PATH (see filesearch).
    """

    def __init__(
        self,
        root: Path,
        *,
        use_ripgrep: bool | None = None,
        sandbox: SandboxSettings | None = None,
    ) -> None:
        self.sandbox = sandbox or SandboxSettings()
        self._root = _real_dir(Path(root).expanduser())
        self._use_ripgrep = use_ripgrep
        self.secrets = paths.SecretFiles(self._root, self.sandbox.secret_patterns)
        self._commands = SessionCommands(self._root, lambda: self.sandbox)

    async def unsaved_buffers(self) -> dict[str, str | None]:
        return {}  # headless: no editor holds a buffer

    def use_sandbox(self, settings: SandboxSettings) -> None:
        self.sandbox = settings
        if settings.secret_patterns != self.secrets.patterns:  # else the same matcher
            self.secrets = paths.SecretFiles(self._root, settings.secret_patterns)

    @property
    def root(self) -> Path:
        return self._root

    def relative(self, path: str) -> str:
        # A symlink or hard link to a secret file is that file: the gate sees its name.
        rel, real = paths.confine_real(self._root, path)
        if paths.is_secret_path(rel, self.secrets.patterns):
            return rel
        return self.secrets.secret_behind(rel, real) or rel

    def _real(self, path: str) -> tuple[str, Path]:
        """The workspace-relative path and the real file behind it (symlinks resolved)."""
        rel = self.relative(path)
        real = (self._root / rel).resolve()
        if not real.is_relative_to(self._root):  # the link changed since relative() looked
            raise ToolError(ErrorCode.PERMISSION_DENIED, f"{path!r} leads outside the workspace")
        return rel, real

    async def read(self, path: str) -> FileSnapshot:
        # On a thread: an event loop serving others (an editor, other sessions) goes on.
        return await asyncio.to_thread(self._read, path)

    def _read(self, path: str) -> FileSnapshot:
        rel, real = self._readable(path)
        try:
            with open(real, "rb") as handle:
                # The version is taken before reading: a change during the read
                # makes the next version check fail, never pass wrongly.
                version = version_of(os.fstat(handle.fileno()))
                data = handle.read()
        except FileNotFoundError as exc:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist") from exc
        except OSError as exc:
            raise _os_error(rel, "read", exc) from exc
        return FileSnapshot(path=rel, data=data, version=version)

    async def read_lines(self, path: str, window: LineWindow) -> FileLines:
        return await asyncio.to_thread(self._read_lines, path, window)

    def _read_lines(self, path: str, window: LineWindow) -> FileLines:
        rel, real = self._readable(path)
        try:
            with open(real, "rb") as handle:
                st = os.fstat(handle.fileno())  # the version before reading, as in _read
                chunks = iter(partial(handle.read, lines.CHUNK_BYTES), b"")
                return lines.scan(rel, version_of(st), chunks, window, st.st_size)
        except FileNotFoundError as exc:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist") from exc
        except OSError as exc:
            raise _os_error(rel, "read", exc) from exc

    def _readable(self, path: str) -> tuple[str, Path]:
        rel, real = self._real(path)
        if real.is_dir():
            raise ToolError(
                ErrorCode.NOT_FOUND, f"{rel} is a directory, not a file; use list_files to see it"
            )
        if real.exists() and not real.is_file():  # a FIFO or device would block or never end
            raise ToolError(ErrorCode.INVALID_INPUT, f"{rel} is not a regular file")
        return rel, real

    async def file_size(self, path: str) -> int | None:
        """A regular file's size in bytes, None when there is none at the path."""
        st = self._stat(path)
        return st.st_size if st is not None and stat.S_ISREG(st.st_mode) else None

    async def version(self, path: str) -> str | None:
        st = self._stat(path)
        return version_of(st) if st is not None and stat.S_ISREG(st.st_mode) else None

    def _stat(self, path: str) -> os.stat_result | None:
        """None also for a path a link now leads out of the workspace (a command made it):
        there is no such file in the workspace."""
        try:
            _, real = self._real(path)
            return real.stat()
        except (OSError, ToolError):
            return None

    async def list_files(self, path: str, pattern: str | None, limit: int) -> Listing:
        rel = await asyncio.to_thread(self._existing, path)
        return await filesearch.list_files(
            self._root, rel, pattern, limit, use_ripgrep=self._use_ripgrep
        )

    async def search(self, pattern: str, path: str, glob: str | None, limit: int) -> SearchResult:
        rel = await asyncio.to_thread(self._existing, path)
        return await filesearch.search(
            self._root,
            pattern,
            rel,
            glob,
            limit,
            use_ripgrep=self._use_ripgrep,
            secret=self.secrets.is_secret,
            secret_globs=self.secrets.patterns,
        )

    def _existing(self, path: str) -> str:
        rel = self.relative(path)
        if not (self._root / rel).exists():
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist")
        return rel

    async def write(
        self, path: str, new_text: str, *, expected_version: str | None, create: bool
    ) -> WriteOutcome:
        rel, real = self._real(path)
        if real.is_dir():
            raise ToolError(ErrorCode.INVALID_INPUT, f"{rel} is a directory, not a file")
        current = await self.version(rel)
        if create and current is not None:
            raise ToolError(ErrorCode.CONFLICT, f"{rel} already exists", retryable=True)
        if not create and current is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} no longer exists")
        if expected_version is not None and current != expected_version:
            raise ToolError(
                ErrorCode.CONFLICT,
                f"{rel} changed since it was read; read it again",
                retryable=True,
            )
        _check_parent_folders(rel, real)
        data = new_text.encode("utf-8")
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            if create:
                _create_exclusive(real, data)
            else:
                replace_atomically(real, data, keep_mode=True)
            new_version = version_of(real.stat())
        except FileExistsError as exc:
            raise ToolError(ErrorCode.CONFLICT, f"{rel} already exists", retryable=True) from exc
        except FileNotFoundError as exc:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} vanished while writing") from exc
        except NotADirectoryError as exc:
            raise ToolError(
                ErrorCode.INVALID_INPUT, f"a parent of {rel} is a file, not a folder"
            ) from exc
        except OSError as exc:
            raise _os_error(rel, "write", exc) from exc
        return WriteOutcome(applied=True, version=new_version)

    async def apply_changes(self, changes: Sequence[FileChange], summary: str) -> ChangesOutcome:
        """All or nothing: every file is checked first; a write that fails puts the
        files already written back as they were."""
        planned = check_changes(self.relative, changes)
        for rel, change in planned:
            if await self.version(rel) != change.version:
                raise ToolError(
                    ErrorCode.CONFLICT,
                    f"{rel} changed since it was read; read it again (nothing was changed)",
                    retryable=True,
                )
        done: dict[str, WriteOutcome] = {}
        before: list[tuple[str, bytes | None]] = []
        for rel, change in planned:
            try:
                previous = await self.current_bytes(rel)
                done[rel] = await self.write(
                    rel, change.new_text, expected_version=change.version, create=False
                )
                before.append((rel, previous))
            except ToolError as exc:
                try:
                    await self.restore_files(before)
                except OSError as undo_exc:
                    kept = ", ".join(r for r, _ in before)
                    raise ToolError(
                        exc.code,
                        f"{exc}; and {kept} could not be put back ({undo_exc})",
                        retryable=False,
                    ) from None
                raise ToolError(
                    exc.code, f"{exc} (nothing was changed)", retryable=exc.retryable
                ) from None
        return ChangesOutcome(True, files=done)

    async def current_bytes(self, path: str) -> bytes | None:
        """What a file holds now, None when it does not exist (for undo)."""
        try:
            return (self._root / self.relative(path)).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    async def restore_files(self, files: list[tuple[str, bytes | None]]) -> None:
        """Put files back as a checkpoint had them; None removes a file the turn created.
        Every path is confined first: one that leads out of the workspace (through a link
        a command made) raises ToolError before anything is written."""
        confined = [(self.relative(path), content) for path, content in files]
        for rel, content in confined:
            target = self._root / rel
            if content is None:
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                replace_atomically(target, content, keep_mode=True)
            else:
                target.write_bytes(content)

    async def run_command(
        self, grant: CommandGrant, timeout_seconds: float, output_limit: int
    ) -> CommandResult:
        return await self._commands.run(grant, timeout_seconds, output_limit)

    async def start_command(self, grant: CommandGrant, wait_seconds: float) -> ProcessRead:
        return await self._commands.start(grant, wait_seconds)

    @property
    def processes(self) -> SessionCommands:
        return self._commands

    async def end_commands(self) -> list[ProcessInfo]:
        return await self._commands.aclose()

    def kill_commands(self) -> None:
        self._commands.kill()

    def _command_setup(
        self, control_writable: bool = False
    ) -> tuple[dict[str, str], list[str] | None]:
        """A command's environment and its own sandbox (``control_writable``: a person
        approved a run that writes control files). Walks the workspace: on a worker thread."""
        return self._commands.own_setup(control_writable)


def check_changes(
    relative: Callable[[str], str], changes: Sequence[FileChange]
) -> list[tuple[str, FileChange]]:
    """Each change under its workspace path; a path named twice or no change at all
    is refused before anything is read."""
    if not changes:
        raise ToolError(ErrorCode.INVALID_INPUT, "no files to change")
    planned: list[tuple[str, FileChange]] = []
    for change in changes:
        rel = relative(change.path)
        if any(rel == seen for seen, _ in planned):
            raise ToolError(ErrorCode.INVALID_INPUT, f"{rel} is named twice in one change")
        planned.append((rel, change))
    return planned


def _check_parent_folders(rel: str, real: Path) -> None:
    nearest = next(parent for parent in real.parents if parent.exists())
    if not nearest.is_dir():
        raise ToolError(ErrorCode.INVALID_INPUT, f"a parent of {rel} is a file, not a folder")


def _create_exclusive(target: Path, data: bytes) -> None:
    # O_EXCL: a file that appeared since the check is a conflict, not overwritten.
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with open(fd, "wb") as handle:
        handle.write(data)


def _os_error(rel: str, action: str, exc: OSError) -> ToolError:
    if isinstance(exc, PermissionError):
        return ToolError(ErrorCode.PERMISSION_DENIED, f"cannot {action} {rel}: permission denied")
    return ToolError(ErrorCode.EXECUTION_FAILED, f"cannot {action} {rel}: {exc.strerror or exc}")
