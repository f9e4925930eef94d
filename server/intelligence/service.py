"""LanguageIntelligence for one session's Workspace.

The text a server checks is the text the Workspace reads (the editor's unsaved
buffer in the language server, the disk headless), synced before every
question. Positions are converted here; tools only see lines and names. What
comes from a secret file is screened out of every answer (`withholding`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.intelligence.config import (
    LanguageServerConfig,
    ProblemsSettings,
    ServerChoice,
    effective_servers,
    language_id,
)
from agentls.intelligence.lazy import LazyModule
from agentls.intelligence.positions import (
    apply_edits,
    from_fs_path,
    line_at,
    to_fs_path,
    utf16_column,
)
from agentls.intelligence.unavailable import ServerUnavailable
from agentls.intelligence.withholding import SecretScreen, Tally
from agentls.workspace.globs import match_path
from agentls.workspace.interface import Workspace
from agentls.workspace.language import (
    CodeLocation,
    CodeSymbol,
    FileChange,
    Locations,
    Problem,
    ProblemReport,
    Severity,
    Symbols,
)

if TYPE_CHECKING:
    from lsprotocol import types

    from agentls.intelligence.connection import Connection
    from agentls.intelligence.pool import ServerPool
else:
    types = LazyModule("lsprotocol.types")

# Who answers the Workspace's language questions (the `languageIntelligence` setting).
Source = Literal["auto", "editor", "agentls"]
SEVERITIES: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}
MAX_RESULTS = 200


@dataclass
class Baseline:
    """The problems of files before a turn's edits, by file."""

    versions: dict[str, str | None] = field(default_factory=dict)
    problems: dict[str, Counter[tuple[str, str, str, str]]] = field(default_factory=dict)


class WorkspaceIntelligence:
    def __init__(
        self,
        hub: ServerPool,
        workspace: Workspace,
        servers: Mapping[str, LanguageServerConfig | None],
        problems: ProblemsSettings,
        *,
        source: Source = "auto",
    ) -> None:
        self.hub = hub
        self.workspace = workspace
        self.problem_settings = problems
        self.source: Source = source  # who answers: see editor.py
        self.choices: list[ServerChoice] = effective_servers(servers)
        self.pending = Baseline()  # what the next after-edit report compares with
        self.screen = SecretScreen(workspace)

    def configure(
        self,
        servers: Mapping[str, LanguageServerConfig | None],
        problems: ProblemsSettings,
        *,
        source: Source = "auto",
    ) -> None:
        self.choices = effective_servers(servers)
        self.problem_settings = problems
        self.source = source

    # -- which servers serve a file --------------------------------------------------

    def _matching(self, rel: str) -> list[ServerChoice]:
        name = PurePosixPath(rel).name
        return [
            c for c in self.choices
            if any(_matches(p, rel, name) for p in c.config.file_patterns)
        ]  # fmt: skip

    def why_none(self, rel: str) -> str | None:
        """Why nothing can check ``rel``, or None when something may."""
        return self.why_none_own(rel)

    def why_none_own(self, rel: str) -> str | None:
        """Why none of agentls's own servers can check ``rel``, or None when one may."""
        matching = self._matching(rel)
        if any(c.executable for c in matching):
            return None
        suffix = PurePosixPath(rel).suffix or PurePosixPath(rel).name
        if not matching:
            return f"no language server is configured for {suffix} files (see languageServers)"
        return "no language server for {} files: {}".format(
            suffix, "; ".join(c.why_missing for c in matching)
        )

    def _connections(self, rel: str) -> list[Connection]:
        found = []
        for choice in self._matching(rel):
            if choice.executable is None:
                continue
            project = _project_root(self.workspace.root, rel, choice.config.root_markers)
            found.append(
                self.hub.connection(
                    self.workspace.root, choice.name, choice.config, choice.executable, project
                )
            )
        return found

    # -- syncing ---------------------------------------------------------------------

    def uri(self, rel: str) -> str:
        path = self.workspace.root / rel
        return from_fs_path(str(path)) or path.as_uri()

    async def _text(self, rel: str) -> str | None:
        try:
            snapshot = await self.workspace.read(rel)
        except ToolError:
            return None
        return snapshot.data.decode("utf-8", "replace")

    async def _sync(self, connection: Connection, rel: str) -> str | None:
        text = await self._text(rel)
        if text is not None:
            await connection.sync(self.uri(rel), language_id(connection.config, rel), text)
        return text

    async def _sync_open(self, connection: Connection) -> None:
        """Documents the server has open, and the editor's unsaved buffers, as they are now."""
        paths = {self._rel_of(uri) for uri in connection.docs}
        unsaved = getattr(self.workspace, "unsaved_buffers", None)
        if unsaved is not None:
            paths.update(await unsaved())
        for rel in sorted(p for p in paths if p is not None):
            if connection in self._connections(rel):
                await self._sync(connection, rel)

    def _rel_of(self, uri: str) -> str | None:
        path = to_fs_path(uri)
        if path is None:
            return None
        try:
            return Path(path).resolve().relative_to(self.workspace.root).as_posix()
        except ValueError:
            return None

    def _shown_path(self, uri: str) -> str:
        return self._rel_of(uri) or (to_fs_path(uri) or uri)

    # -- problems --------------------------------------------------------------------

    async def problems(self, paths: Sequence[str] | None) -> ProblemReport:
        wait = max(self.problem_settings.settle_seconds, 5.0)
        asked: list[str] = []  # the files the call names: the gate asked about those
        if paths is None:  # the files the servers have open, and the editor's unsaved ones
            open_paths = {r for c in self.hub.connections.values() for r in self._open_paths(c)}
            unsaved = getattr(self.workspace, "unsaved_buffers", None)
            rels = sorted(open_paths | set(await unsaved() if unsaved is not None else ()))
        else:
            rels = asked = [self.workspace.relative(p) for p in paths]
        return await self.screen.report(await self._problems(rels, wait, "hint"), asked)

    def _open_paths(self, connection: Connection) -> list[str]:
        if connection.root != self.workspace.root and not connection.root.is_relative_to(
            self.workspace.root
        ):
            return []
        return [r for r in (self._rel_of(u) for u in connection.docs) if r is not None]

    async def _problems(self, rels: Sequence[str], wait: float, least: str) -> ProblemReport:
        rank = {"error": 1, "warning": 2, "information": 3, "hint": 4}[least]
        found: list[Problem] = []
        unchecked: dict[str, str] = {}
        unsettled: list[str] = []

        async def one(rel: str) -> None:
            why = self.why_none_own(rel)
            if why is not None:
                unchecked[rel] = why
                return
            reasons = []
            checked = False
            for connection in self._connections(rel):
                try:
                    if await self._sync(connection, rel) is None:
                        return  # no such file: no problems
                    items, settled = await connection.diagnostics(self.uri(rel), wait)
                except ServerUnavailable as exc:
                    reasons.append(str(exc))
                    continue
                checked = True
                if not settled:
                    unsettled.append(rel)
                for item in items:
                    if (item.severity or 1) <= rank:
                        found.append(_problem(rel, item, connection.name))
            if not checked:
                unchecked[rel] = "; ".join(reasons)

        await asyncio.gather(*(one(rel) for rel in rels))
        found.sort(key=lambda p: (p.path, p.line, p.message))
        return ProblemReport(found, unchecked, sorted(set(unsettled)))

    async def capture(self, rels: Sequence[str]) -> None:
        """Remember these files' problems before a turn edits them."""
        for rel in rels:
            if rel in self.pending.versions or self.why_none(rel) is not None:
                continue
            self.pending.versions[rel] = await self.workspace.version(rel)
            report = await self._problems([rel], self.problem_settings.settle_seconds, "hint")
            self.pending.problems[rel] = Counter(_key(p) for p in report.problems)

    async def introduced(self) -> tuple[list[Problem], list[str]]:
        """Problems the edits since ``capture`` added to the files they changed, and the
        files whose verdict did not settle in time."""
        baseline, self.pending = self.pending, Baseline()
        changed = [
            rel for rel, version in baseline.versions.items()
            if await self.workspace.version(rel) != version
        ]  # fmt: skip
        if not changed:
            return [], []
        least = self.problem_settings.severity
        report = await self._problems(changed, self.problem_settings.settle_seconds, least)
        new: list[Problem] = []
        for rel in changed:
            before = Counter(baseline.problems.get(rel, Counter()))
            for problem in (p for p in report.problems if p.path == rel):
                key = _key(problem)
                if before[key] > 0:
                    before[key] -= 1
                else:
                    new.append(problem)
        shown, _ = await self.screen.problems(new, ())  # no call named them: all screened
        return shown, report.unsettled

    # -- navigation ------------------------------------------------------------------

    async def _serving(self, rel: str, capability: str) -> tuple[Connection, str]:
        """The first server for ``rel`` that offers ``capability``, synced."""
        why = self.why_none_own(rel)
        if why is not None:
            raise ToolError(ErrorCode.NOT_FOUND, why)
        reasons = []
        for connection in self._connections(rel):
            try:
                await connection.ensure()
                if not connection.supports(capability):
                    continue
                await self._sync_open(connection)
                text = await self._sync(connection, rel)
                if text is not None and not connection.warm:
                    # A fresh server answers from its open files until it has loaded the
                    # project; its first verdict on a file means it has.
                    await connection.diagnostics(
                        self.uri(rel), connection.config.start_timeout_seconds
                    )
                    connection.warm = True
            except ServerUnavailable as exc:
                reasons.append(str(exc))
                continue
            if text is None:
                raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist")
            return connection, text
        if reasons:
            raise ToolError(ErrorCode.EXECUTION_FAILED, "; ".join(reasons), retryable=False)
        raise ToolError(
            ErrorCode.NOT_FOUND, f"no running language server for {rel} offers this ({capability})"
        )

    def _position(self, text: str, line: int, column: int) -> types.Position:
        return types.Position(line - 1, utf16_column(line_at(text, line - 1), column))

    async def definition(self, path: str, line: int, column: int) -> Locations:
        rel = self.workspace.relative(path)
        connection, text = await self._serving(rel, "definition_provider")
        params = types.DefinitionParams(
            types.TextDocumentIdentifier(self.uri(rel)), self._position(text, line, column)
        )
        client = await connection.ensure()
        result = await connection.request(
            client.text_document_definition_async(params), "textDocument/definition"
        )
        return await self._locations(result, rel)

    async def references(self, path: str, line: int, column: int) -> Locations:
        rel = self.workspace.relative(path)
        connection, text = await self._serving(rel, "references_provider")
        params = types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(self.uri(rel)),
            position=self._position(text, line, column),
            context=types.ReferenceContext(include_declaration=True),
        )
        client = await connection.ensure()
        result = await connection.request(
            client.text_document_references_async(params), "textDocument/references"
        )
        return await self._locations(result, rel)

    async def _locations(self, result: Any, asked: str) -> Locations:
        """The answer's locations with their lines, but for those in secret files other
        than ``asked`` (the call's own file), whose lines are not even read."""
        if result is None:
            return Locations([])
        items = list(result) if isinstance(result, (list, tuple)) else [result]
        spots = []
        for item in items[:MAX_RESULTS]:
            uri = getattr(item, "target_uri", None) or item.uri
            rng = getattr(item, "target_selection_range", None) or item.range
            spots.append((uri, self._rel_of(uri), rng.start.line))
        hidden = await self.screen.secret_files((r for _, r, _ in spots if r), (asked,))
        tally = Tally()
        withheld: set[tuple[str, int]] = set()
        texts: dict[str, str | None] = {}
        found = set()
        for uri, rel, line in spots:
            if rel is None:  # a library: its path and line; nothing is read outside the root
                found.add(CodeLocation(self._shown_path(uri), line + 1, ""))
                continue
            if rel in hidden:
                if (rel, line) not in withheld:  # a location given twice is one
                    withheld.add((rel, line))
                    tally.add(hidden[rel])
                continue
            if rel not in texts:
                texts[rel] = await self._text(rel)
            text = texts[rel]
            shown = line_at(text, line).strip() if text is not None else ""
            found.add(CodeLocation(rel, line + 1, shown[:200]))
        return Locations(sorted(found, key=lambda loc: (loc.path, loc.line)), tally.withheld())

    async def symbols(self, query: str | None, path: str | None) -> Symbols:
        if path is not None:
            rel = self.workspace.relative(path)
            connection, _ = await self._serving(rel, "document_symbol_provider")
            client = await connection.ensure()
            params = types.DocumentSymbolParams(types.TextDocumentIdentifier(self.uri(rel)))
            result = await connection.request(
                client.text_document_document_symbol_async(params), "textDocument/documentSymbol"
            )
            found = _flatten(list(result or []), rel, self._shown_path)
            if query:
                found = [s for s in found if query.lower() in s.name.lower()]
            return await self.screen.symbols(found[:MAX_RESULTS], (rel,))
        return await self._workspace_symbols(query or "")

    async def _workspace_symbols(self, query: str) -> Symbols:
        reasons: list[str] = []
        found: list[CodeSymbol] = []
        asked: set[int] = set()
        for rel in await self._one_file_per_server():
            try:
                connection, _ = await self._serving(rel, "workspace_symbol_provider")
                if id(connection) in asked:
                    continue
                asked.add(id(connection))
                client = await connection.ensure()
                result = await connection.request(
                    client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query)),
                    "workspace/symbol",
                )
            except (ServerUnavailable, ToolError) as exc:
                reasons.append(str(exc))
                continue
            found += _flatten(list(result or []), "", self._shown_path)
        if not asked:
            why = "; ".join(dict.fromkeys(reasons)) or (
                "no language server can search this workspace's symbols (no file here matches "
                "a server in languageServers)"
            )
            raise ToolError(ErrorCode.NOT_FOUND, why)
        answer = await self.screen.symbols(sorted(set(found), key=_symbol_order), ())
        return Symbols(answer.found[:MAX_RESULTS], answer.withheld)

    async def _one_file_per_server(self) -> list[str]:
        """A file of each available server's language: what starts it for a workspace search."""
        listing = await self.workspace.list_files(".", None, 5000)
        picked: dict[str, str] = {}
        for rel in listing.paths:
            for choice in self._matching(rel):
                if choice.executable is not None:
                    picked.setdefault(choice.name, rel)
        return list(dict.fromkeys(picked.values()))

    async def rename(self, path: str, line: int, column: int, new_name: str) -> list[FileChange]:
        rel = self.workspace.relative(path)
        connection, text = await self._serving(rel, "rename_provider")
        params = types.RenameParams(
            types.TextDocumentIdentifier(self.uri(rel)),
            self._position(text, line, column),
            new_name,
        )
        client = await connection.ensure()
        edit = await connection.request(
            client.text_document_rename_async(params), "textDocument/rename"
        )
        if edit is None:
            raise ToolError(
                ErrorCode.NOT_FOUND, "the language server found nothing to rename there"
            )
        return await self._file_changes(edit)

    async def _file_changes(self, edit: types.WorkspaceEdit) -> list[FileChange]:
        """A rename's WorkspaceEdit as whole-file changes of the text the Workspace reads."""
        changes = []
        for uri, edits in _edits_by_uri(edit).items():
            target = self._rel_of(uri)
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
        if self.problem_settings.after_edits:  # their problems before the rename lands
            await self.capture([c.path for c in changes])
        return sorted(changes, key=lambda c: c.path)


def _symbol_order(symbol: CodeSymbol) -> tuple[str, int, str]:
    return (symbol.path, symbol.line, symbol.name)


def _matches(pattern: str, rel: str, name: str) -> bool:
    target = rel if "/" in pattern else name
    return match_path(pattern, target)


def _project_root(root: Path, rel: str, markers: Sequence[str]) -> Path:
    folder = (root / rel).parent
    while markers and folder.is_relative_to(root):
        if any((folder / marker).exists() for marker in markers):
            return folder
        if folder == root:
            break
        folder = folder.parent
    return root


def _problem(rel: str, item: types.Diagnostic, server: str) -> Problem:
    code = "" if item.code is None else str(item.code)
    message = " ".join(item.message.split())
    return Problem(
        rel, item.range.start.line + 1, message, item.source or server,
        SEVERITIES.get(int(item.severity or 1), "error"), code,
    )  # fmt: skip


def _key(problem: Problem) -> tuple[str, str, str, str]:
    # Lines move when text is inserted above; the same message is the same problem.
    return (problem.severity, problem.source, problem.code, problem.message)


def _edits_by_uri(edit: types.WorkspaceEdit) -> dict[str, list[types.TextEdit]]:
    found: dict[str, list[types.TextEdit]] = {}
    for uri, edits in (edit.changes or {}).items():
        found.setdefault(uri, []).extend(edits)
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            found.setdefault(change.text_document.uri, []).extend(
                e for e in change.edits if isinstance(e, types.TextEdit)
            )
        else:
            raise ToolError(
                ErrorCode.EXECUTION_FAILED,
                "the language server's rename also creates, renames or deletes files, "
                "which the rename tool does not do",
            )
    return found


def _flatten(items: Sequence[Any], rel: str, shown: Any, container: str = "") -> list[CodeSymbol]:
    found = []
    for item in items:
        kind = types.SymbolKind(item.kind).name.lower() if item.kind else "symbol"
        if isinstance(item, types.DocumentSymbol):
            found.append(
                CodeSymbol(item.name, kind, rel, item.selection_range.start.line + 1, container)
            )
            found += _flatten(item.children or [], rel, shown, item.name)
            continue
        location = item.location
        line = location.range.start.line + 1 if hasattr(location, "range") else 1
        found.append(
            CodeSymbol(item.name, kind, shown(location.uri), line, item.container_name or "")
        )
    return found
