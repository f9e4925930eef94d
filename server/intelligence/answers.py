"""What every answerer makes of an LSP answer for one Workspace.

Agentls's own servers (`own_servers`) and the editor (`editor_answers`) answer
in LSP's terms; both turn their answers into the tools' types here, with the
same `SecretScreen` (`withholding`): workspace paths, the lines the Workspace
reads (never those of a location withheld), whole-file changes of what it reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.intelligence.conversions import (
    NotFileEdits,
    apply_edits,
    edits_by_uri,
    from_fs_path,
    line_at,
    location_spots,
    to_fs_path,
)
from agentls.intelligence.withholding import SecretScreen, Tally
from agentls.workspace.interface import Workspace
from agentls.workspace.language import CodeLocation, FileChange, Locations, Problem

if TYPE_CHECKING:
    from lsprotocol import types

MAX_RESULTS = 200


class Unanswered(ToolError):
    """An answerer that may not answer (the editor) gave none: failed, late, or nothing."""

    def __init__(self, who: str, what: str) -> None:
        super().__init__(ErrorCode.EXECUTION_FAILED, f"{who} did not answer {what}")
        self.who = who
        self.what = what


class Answers:
    """One session's Workspace as LSP sees it, and its screen."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.screen = SecretScreen(workspace)

    def uri(self, rel: str) -> str:
        path = self.workspace.root / rel
        return from_fs_path(str(path)) or path.as_uri()

    def rel_of(self, uri: str) -> str | None:
        """The workspace path of a file URI; None outside the workspace or not a file."""
        path = to_fs_path(uri)
        if path is None:
            return None
        try:
            return Path(path).resolve().relative_to(self.workspace.root).as_posix()
        except ValueError:
            return None

    def shown_path(self, uri: str) -> str:
        return self.rel_of(uri) or (to_fs_path(uri) or uri)

    async def text(self, rel: str) -> str | None:
        """The text the Workspace reads (an open buffer first); None when there is none."""
        try:
            snapshot = await self.workspace.read(rel)
        except ToolError:
            return None
        return snapshot.data.decode("utf-8", "replace")

    async def unsaved(self) -> list[str]:
        """The editor's unsaved buffers (none headless)."""
        return list(await self.workspace.unsaved_buffers())

    async def locations(self, result: Any, asked: str) -> Locations:
        """The answer's locations with their lines, but for those in secret files other
        than ``asked`` (the call's own file), whose lines are not even read."""
        spots = [(uri, self.rel_of(uri), line) for uri, line in location_spots(result)]
        spots = spots[:MAX_RESULTS]
        hidden = await self.screen.secret_files((r for _, r, _ in spots if r), (asked,))
        tally = Tally()
        withheld: set[tuple[str, int]] = set()
        texts: dict[str, str | None] = {}
        found = set()
        for uri, rel, line in spots:
            if rel is None:  # a library: its path and line; nothing is read outside the root
                found.add(CodeLocation(self.shown_path(uri), line + 1, ""))
                continue
            if rel in hidden:
                if (rel, line) not in withheld:  # a location given twice is one
                    withheld.add((rel, line))
                    tally.add(hidden[rel])
                continue
            if rel not in texts:
                texts[rel] = await self.text(rel)
            text = texts[rel]
            shown = line_at(text, line).strip() if text is not None else ""
            found.add(CodeLocation(rel, line + 1, shown[:200]))
        return Locations(sorted(found, key=lambda loc: (loc.path, loc.line)), tally.withheld())

    async def file_changes(self, edit: types.WorkspaceEdit) -> list[FileChange]:
        """A rename's WorkspaceEdit as whole-file changes of the text the Workspace reads."""
        try:
            by_uri = edits_by_uri(edit)
        except NotFileEdits:
            raise ToolError(
                ErrorCode.EXECUTION_FAILED,
                "the language server's rename also creates, renames or deletes files, "
                "which the rename tool does not do",
            ) from None
        changes = []
        for uri, edits in by_uri.items():
            target = self.rel_of(uri)
            if target is None:
                raise ToolError(
                    ErrorCode.PERMISSION_DENIED,
                    f"the rename would change {to_fs_path(uri) or uri}, outside the workspace",
                )
            snapshot = await self.workspace.read(target)
            old = snapshot.data.decode("utf-8", "replace")
            new = apply_edits(old, edits)
            if new != old:
                changes.append(FileChange(target, old, new, snapshot.version))
        return sorted(changes, key=lambda c: c.path)


def sorted_problems(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.path, p.line, p.message))
