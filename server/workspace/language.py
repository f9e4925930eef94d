"""What tools may ask of language servers, without knowing LSP.

The implementation (agentls.intelligence) talks to real language servers; tools
see only these types. Lines are 1-based; a column is a character index on the
line (0-based, in code points), never a protocol position.

Nothing an answer holds comes from a secret file (`SecretFiles`: by name under the
session's `secretFiles`, or a symbolic or hard link to one) the call did not name
itself: such locations, symbols and problems are left out, and the answer's
`Withheld` says how many and from which files, so a tool can say why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Severity = Literal["error", "warning", "information", "hint"]


@dataclass(frozen=True, slots=True)
class Withheld:
    """What an answer left out because it came from secret files."""

    count: int = 0
    files: tuple[str, ...] = ()  # the secret files, sorted

    def note(self, one: str, many: str) -> str:
        """Why ``count`` items (``one``/``many`` of them) are missing, as read_file would say."""
        noun = one if self.count == 1 else many
        source, them = ("a secret file", "it") if len(self.files) == 1 else ("secret files", "them")
        return (
            f"{self.count} {noun} from {source} withheld ({', '.join(self.files)}): "
            f"read {them} with read_file, which asks first"
        )


NOTHING_WITHHELD = Withheld()


@dataclass(frozen=True, slots=True)
class Problem:
    path: str  # workspace-relative
    line: int
    message: str
    source: str  # the server or linter that reported it ("basedpyright", "Ruff")
    severity: Severity
    code: str = ""

    def render(self) -> str:
        source = f"{self.source} {self.code}".strip()
        return f"{self.path}:{self.line}: {self.message}" + (f" ({source})" if source else "")


@dataclass(frozen=True, slots=True)
class ProblemReport:
    problems: list[Problem]
    # Files no server checked, with why ("no language server for .md files").
    unchecked: dict[str, str]
    # Files whose problems did not settle in time (shown as they were then).
    unsettled: list[str]
    withheld: Withheld = NOTHING_WITHHELD


@dataclass(frozen=True, slots=True)
class CodeLocation:
    path: str  # workspace-relative, or absolute outside the workspace (a library)
    line: int
    text: str  # that line, stripped


@dataclass(frozen=True, slots=True)
class CodeSymbol:
    name: str
    kind: str  # "class", "function", ...
    path: str
    line: int
    container: str = ""


@dataclass(frozen=True, slots=True)
class Locations:
    found: list[CodeLocation]
    withheld: Withheld = NOTHING_WITHHELD


@dataclass(frozen=True, slots=True)
class Symbols:
    found: list[CodeSymbol]
    withheld: Withheld = NOTHING_WITHHELD


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    old_text: str
    new_text: str
    version: str  # the Workspace version old_text was read at


class LanguageIntelligence(Protocol):
    """Language servers for one workspace. Raises ToolError when none can answer."""

    async def problems(self, paths: Sequence[str] | None) -> ProblemReport:
        """Current problems of these files (None: every file the servers have open)."""
        ...

    async def definition(self, path: str, line: int, column: int) -> Locations: ...

    async def references(self, path: str, line: int, column: int) -> Locations: ...

    async def symbols(self, query: str | None, path: str | None) -> Symbols:
        """Document symbols of ``path``, else workspace symbols matching ``query``."""
        ...

    async def rename(self, path: str, line: int, column: int, new_name: str) -> list[FileChange]:
        """The server's rename as whole-file changes (nothing is written here)."""
        ...
