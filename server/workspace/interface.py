"""The surface tools are written against: a Workspace, a ToolContext, a ToolDefinition.

LocalWorkspace (headless) and the LSP face's LspWorkspace implement Workspace;
tools never touch the disk, a process or the editor except through it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from agentls.contracts.plans import PlanAnswer
from agentls.contracts.processes import (
    CallRef,
    ProcessChange,
    ProcessInfo,
    ProcessRead,
    StoppedBy,
)
from agentls.contracts.tooling import Risk, ToolOutput
from agentls.workspace.language import FileChange, LanguageIntelligence
from agentls.workspace.lines import FileLines, LineWindow

if TYPE_CHECKING:  # pydantic loads with the tools, not when a face starts
    from pydantic import BaseModel

    from agentls.workspace.paths import SecretFiles
    from agentls.workspace.sandbox import SandboxSettings


@dataclass(frozen=True, slots=True)
class FileSnapshot:
    """A file's bytes as the workspace sees them (an open buffer wins over disk)."""

    path: str  # workspace-relative, posix separators
    data: bytes
    version: str  # opaque; changes whenever the content may have changed


@dataclass(frozen=True, slots=True)
class Listing:
    paths: list[str]  # workspace-relative, sorted
    truncated: bool


@dataclass(frozen=True, slots=True)
class SearchMatch:
    path: str
    line: int  # 1-based
    text: str


@dataclass(frozen=True, slots=True)
class SearchResult:
    matches: list[SearchMatch]
    truncated: bool
    engine: str  # "ripgrep" or "python"


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """What happened to a proposed change.

    ``applied`` False means nothing was written (the person rejected it, or
    the editor refused); ``landed`` is the text that is now in the file when
    it differs from what was proposed (a formatter ran, the person edited the
    preview), else None.
    """

    applied: bool
    message: str = ""
    landed: str | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True)
class ChangesOutcome:
    """What happened to a change of several files, reviewed and applied as one.

    ``applied`` False means no file was changed; ``files`` holds each changed
    file's own outcome (its new version, what landed), by workspace path.
    """

    applied: bool
    message: str = ""
    files: dict[str, WriteOutcome] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CommandGrant:
    """A command line the permission gate let run, and how: made only by the tool
    runtime, after the gate's decision, for the one call it decided."""

    judged: str  # the call's command, as the gate and any person saw it
    # What runs: the gate's own spelling of the judged line when rules (or --yes)
    # approved it, so bash cannot read it differently; the judged text when a person did.
    line: str
    # A person allowed a line that writes control files: its run may write them (the
    # sandbox keeps them read-only for every other command).
    control_writable: bool = False
    # The call it was decided for (a background process started by it keeps it).
    call: CallRef = field(default_factory=CallRef)


@dataclass(frozen=True, slots=True)
class CommandResult:
    exit_code: int | None  # None when killed (timeout or cancel)
    output: str  # stdout and stderr interleaved, already bounded
    timed_out: bool
    truncated_bytes: int  # how much output was dropped


class BackgroundProcesses(Protocol):
    """A session's background processes (ids p1, p2, ...): read, stopped, listed, watched.
    An id the session does not have is ToolError(not_found)."""

    async def read(self, pid: str, wait_seconds: float = 0.0) -> ProcessRead:
        """What it wrote since the last read; with nothing new and still running, waits up
        to ``wait_seconds`` for output or its end."""
        ...

    async def stop(self, pid: str, by: StoppedBy) -> ProcessRead:
        """TERM its process group, KILL it after a grace; what it wrote since the last read."""
        ...

    async def stop_all(
        self, by: StoppedBy, which: Callable[[ProcessInfo], bool] | None = None
    ) -> list[ProcessInfo]:
        """Stop every running one (or those ``which`` picks); those stopped."""
        ...

    def snapshot(self) -> list[ProcessInfo]: ...

    def watch(self, listener: Callable[[ProcessChange], None]) -> Callable[[], None]:
        """Tell ``listener`` each start, exit and stop; the returned function stops it."""
        ...

    def skip_to(self, number: int) -> None:
        """Ids go on after ``p<number>`` (the session's log used them already)."""
        ...


class Workspace(Protocol):
    """One workspace root. Paths are workspace-relative or absolute inside the root."""

    @property
    def root(self) -> Path: ...

    @property
    def secrets(self) -> SecretFiles:
        """Which of its files hold secrets, under the session's `secretFiles` (links too)."""
        ...

    def relative(self, path: str) -> str:
        """Normalise a path the model gave to a workspace-relative posix path.

        Raises ToolError(permission_denied) when it resolves outside the root
        (``..``, symlinks, other absolute paths).
        """
        ...

    async def read(self, path: str) -> FileSnapshot:
        """Raises ToolError(not_found) for a missing file or a directory."""
        ...

    async def read_lines(self, path: str, window: LineWindow) -> FileLines:
        """A window of a file's lines, what it is and how many lines it has, read without
        holding the whole file (an open buffer's text where ``read`` would give it), at the
        version ``read`` gives; errors as ``read``'s."""
        ...

    async def version(self, path: str) -> str | None:
        """The current version of a file, or None when it does not exist."""
        ...

    async def list_files(self, path: str, pattern: str | None, limit: int) -> Listing: ...

    async def search(
        self, pattern: str, path: str, glob: str | None, limit: int
    ) -> SearchResult: ...

    async def write(
        self, path: str, new_text: str, *, expected_version: str | None, create: bool
    ) -> WriteOutcome:
        """Replace (or create) a file's text.

        ``expected_version`` is the version the caller based its change on;
        when the file moved since, ToolError(conflict) is raised and nothing
        is written. ``create`` True means the file must not exist yet
        (ToolError(conflict) if it appeared meanwhile).
        """
        ...

    async def apply_changes(self, changes: Sequence[FileChange], summary: str) -> ChangesOutcome:
        """Change several existing files as one: one review, all or nothing.

        Each change's ``version`` is the version its ``old_text`` was read at;
        when any file moved since, ToolError(conflict) is raised and nothing is
        written. ``summary`` describes the whole change to a person.
        """
        ...

    async def run_command(
        self, grant: CommandGrant, timeout_seconds: float, output_limit: int
    ) -> CommandResult:
        """Run the line a grant allows in the root; cancelling kills its process group."""
        ...

    async def start_command(self, grant: CommandGrant, wait_seconds: float) -> ProcessRead:
        """Start the line a grant allows in the background, in the session's sandbox; what
        it wrote in its first ``wait_seconds`` (or until it exited). ToolError when the
        session runs its limit of background processes already."""
        ...

    @property
    def processes(self) -> BackgroundProcesses:
        """The session's background processes."""
        ...

    async def end_commands(self) -> list[ProcessInfo]:
        """The session ends: every background process stopped, then its sandbox; the
        processes stopped."""
        ...

    def kill_commands(self) -> None:
        """Every process of the session and its sandbox ended at once (no event loop)."""
        ...

    def use_sandbox(self, settings: SandboxSettings) -> None:
        """The sandbox (and secret patterns) commands run under from now on."""
        ...

    async def unsaved_buffers(self) -> dict[str, str | None]:
        """Open documents whose text is not on disk yet (none headless), for checkpoints
        and language servers."""
        ...


BUFFER_VERSION_PREFIX = "buffer:"  # a version read from an editor's open buffer


class ReadVersions(dict[str, str]):
    """path -> the version the agent last read, knowing which were read from open
    buffers (``buffered``), so a turn's look at them does not scan every read."""

    def __init__(self) -> None:
        super().__init__()
        self.buffered: set[str] = set()

    def __setitem__(self, path: str, version: str) -> None:
        super().__setitem__(path, version)
        if version.startswith(BUFFER_VERSION_PREFIX):
            self.buffered.add(path)
        else:
            self.buffered.discard(path)

    def __delitem__(self, path: str) -> None:
        super().__delitem__(path)
        self.buffered.discard(path)

    def pop(self, path: str, *default: str | None) -> str | None:  # type: ignore[override]
        self.buffered.discard(path)
        return super().pop(path, *default)

    def clear(self) -> None:
        super().clear()
        self.buffered.clear()

    def update(self, *args: Any, **kwargs: str) -> None:
        for path, version in dict(*args, **kwargs).items():
            self[path] = version

    def setdefault(self, path: str, version: str) -> str:
        if path not in self:
            self[path] = version
        return self[path]

    def popitem(self) -> tuple[str, str]:
        path, version = super().popitem()
        self.buffered.discard(path)
        return path, version


class MemoryProposals(Protocol):
    """Where the `remember` tool's proposals go once a person said yes: the session's
    memory store, which works out the source from the evidence it is given."""

    async def keep(self, content: str, scope: str, evidence: Sequence[str]) -> str: ...


@dataclass
class ToolContext:
    """What a tool call may use. Tools get no messages, state or settings beyond this."""

    workspace: Workspace
    # path -> version the agent last read; edit tools refuse stale files.
    reads: ReadVersions = field(default_factory=ReadVersions)
    output_limit: int = 30_000  # characters a tool result may carry
    command_timeout_seconds: float = 120.0
    # Language servers (problems, definitions, rename); None where a face has none.
    intelligence: LanguageIntelligence | None = None
    # The session's memory store (None: this face keeps no memory).
    memory: MemoryProposals | None = None
    # The command this call may run, set by the tool runtime for the call it allowed.
    grant: CommandGrant | None = None
    # The person's answer to the plan this call proposes, set by the tool runtime.
    plan_answer: PlanAnswer | None = None


InputT = TypeVar("InputT", bound="BaseModel")

# "text": rules match their pattern as a glob against free text (an external
# tool's arguments as JSON, or the one argument its settings name).
SubjectKind = Literal["path", "command", "text", "none"]


@dataclass(frozen=True)
class ToolDefinition(Generic[InputT]):
    """A tool: its schema, its risk and the code that runs it.

    ``subject`` returns what permission rules match against (the path for
    path tools, the command line for run_command); ``summary`` is the one
    line shown to a person and in events.
    """

    name: str
    description: str
    input_model: type[InputT]
    risk: Risk
    run: Callable[[InputT, ToolContext], Awaitable[ToolOutput]]
    subject_kind: SubjectKind
    subject: Callable[[InputT], str]
    summary: Callable[[InputT], str]
    # Tool-specific validation before any permission question (e.g. path
    # confinement); raises ToolError.
    validate: Callable[[InputT, ToolContext], None] | None = None
    # Shown to a person before approving (a diff, the full command).
    detail: Callable[[InputT, ToolContext], Awaitable[str]] | None = None
    # External tools (MCP) bring their own JSON schema: it is what the model sees,
    # and their input_model checks input against it.
    json_schema: dict[str, Any] | None = None
    # The providing server says the tool changes nothing (MCP readOnlyHint): plan
    # mode may show it, but it is still asked like any external tool.
    read_only_hint: bool = False
    # Every path a call may write besides ``subject`` (a rename's other files):
    # permission rules are checked against each, so one protected path asks.
    more_subjects: Callable[[InputT, ToolContext], Awaitable[list[str]]] | None = None

    def input_schema(self) -> dict[str, Any]:
        if self.json_schema is not None:
            return self.json_schema
        return _schema_of(self.input_model)


@cache
def _schema_of(model: type[BaseModel]) -> dict[str, Any]:
    # Generating a JSON schema takes ~0.5 ms; every session shows the same tools.
    return model.model_json_schema()
