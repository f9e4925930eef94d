"""agentls's own language servers as a session's `LanguageIntelligence`.

The text a server checks is the text the Workspace reads (the editor's unsaved
buffer in the language server, the disk headless), synced before every
question. The servers themselves are the hub's (`hub.ServerHub`), shared by the
workspace's sessions; positions and answers are converted by `conversions` and
`answers`, so nothing from a secret file comes through (`withholding`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.intelligence.answers import MAX_RESULTS, Answers, sorted_problems
from agentls.intelligence.config import (
    LanguageServerConfig,
    ProblemsSettings,
    ServerChoice,
    effective_servers,
    language_id,
)
from agentls.intelligence.conversions import (
    RANKS,
    flatten_symbols,
    line_at,
    problem,
    symbol_order,
    utf16_column,
)
from agentls.intelligence.hub import ServerHub
from agentls.intelligence.lazy import LazyModule
from agentls.intelligence.unavailable import ServerUnavailable
from agentls.workspace.globs import match_path
from agentls.workspace.language import (
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
else:
    types = LazyModule("lsprotocol.types")


class OwnServers:
    """The servers of `languageServers` that serve one session's Workspace."""

    def __init__(
        self,
        hub: ServerHub,
        answers: Answers,
        servers: Mapping[str, LanguageServerConfig | None],
        problems: ProblemsSettings,
    ) -> None:
        self.hub = hub
        self.answers = answers
        self.workspace = answers.workspace
        self.problem_settings = problems
        self.choices: list[ServerChoice] = effective_servers(servers)

    def configure(
        self, servers: Mapping[str, LanguageServerConfig | None], problems: ProblemsSettings
    ) -> None:
        self.choices = effective_servers(servers)
        self.problem_settings = problems

    # -- which servers serve a file --------------------------------------------------

    def _matching(self, rel: str) -> list[ServerChoice]:
        name = PurePosixPath(rel).name
        return [
            c for c in self.choices
            if any(_matches(p, rel, name) for p in c.config.file_patterns)
        ]  # fmt: skip

    def why_none(self, rel: str) -> str | None:
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

    async def _sync(self, connection: Connection, rel: str) -> str | None:
        text = await self.answers.text(rel)
        if text is not None:
            await connection.sync(self.answers.uri(rel), language_id(connection.config, rel), text)
        return text

    async def _sync_open(self, connection: Connection) -> None:
        """Documents the server has open, and the editor's unsaved buffers, as they are now."""
        paths = {self.answers.rel_of(uri) for uri in connection.docs}
        paths.update(await self.answers.unsaved())
        for rel in sorted(p for p in paths if p is not None):
            if connection in self._connections(rel):
                await self._sync(connection, rel)

    # -- problems --------------------------------------------------------------------

    async def problems(self, paths: Sequence[str] | None) -> ProblemReport:
        wait = max(self.problem_settings.settle_seconds, 5.0)
        asked: list[str] = []  # the files the call names: the gate asked about those
        if paths is None:  # the files the servers have open, and the editor's unsaved ones
            open_paths = {r for c in self.hub.connections.values() for r in self._open_paths(c)}
            rels = sorted(open_paths | set(await self.answers.unsaved()))
        else:
            rels = asked = [self.workspace.relative(p) for p in paths]
        return await self.answers.screen.report(await self.check(rels, wait, "hint"), asked)

    def _open_paths(self, connection: Connection) -> list[str]:
        if connection.root != self.workspace.root and not connection.root.is_relative_to(
            self.workspace.root
        ):
            return []
        return [r for r in (self.answers.rel_of(u) for u in connection.docs) if r is not None]

    async def check(self, rels: Sequence[str], wait: float, least: Severity) -> ProblemReport:
        """The problems of these files as the servers report them (at least ``least``,
        waiting at most ``wait`` for each verdict), not yet screened."""
        rank = RANKS[least]
        found: list[Problem] = []
        unchecked: dict[str, str] = {}
        unsettled: list[str] = []

        async def one(rel: str) -> None:
            why = self.why_none(rel)
            if why is not None:
                unchecked[rel] = why
                return
            reasons = []
            checked = False
            for connection in self._connections(rel):
                try:
                    if await self._sync(connection, rel) is None:
                        return  # no such file: no problems
                    items, settled = await connection.diagnostics(self.answers.uri(rel), wait)
                except ServerUnavailable as exc:
                    reasons.append(str(exc))
                    continue
                checked = True
                if not settled:
                    unsettled.append(rel)
                for item in items:
                    if (item.severity or 1) <= rank:
                        found.append(problem(rel, item, connection.name))
            if not checked:
                unchecked[rel] = "; ".join(reasons)

        await asyncio.gather(*(one(rel) for rel in rels))
        return ProblemReport(sorted_problems(found), unchecked, sorted(set(unsettled)))

    # -- navigation ------------------------------------------------------------------

    async def _serving(self, rel: str, capability: str) -> tuple[Connection, str]:
        """The first server for ``rel`` that offers ``capability``, synced."""
        why = self.why_none(rel)
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
                        self.answers.uri(rel), connection.config.start_timeout_seconds
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

    def _document(self, rel: str) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(self.answers.uri(rel))

    def _position(self, text: str, line: int, column: int) -> types.Position:
        return types.Position(line - 1, utf16_column(line_at(text, line - 1), column))

    async def definition(self, path: str, line: int, column: int) -> Locations:
        rel = self.workspace.relative(path)
        connection, text = await self._serving(rel, "definition_provider")
        params = types.DefinitionParams(self._document(rel), self._position(text, line, column))
        client = await connection.ensure()
        result = await connection.request(
            client.text_document_definition_async(params), "textDocument/definition"
        )
        return await self.answers.locations(result, rel)

    async def references(self, path: str, line: int, column: int) -> Locations:
        rel = self.workspace.relative(path)
        connection, text = await self._serving(rel, "references_provider")
        params = types.ReferenceParams(
            text_document=self._document(rel),
            position=self._position(text, line, column),
            context=types.ReferenceContext(include_declaration=True),
        )
        client = await connection.ensure()
        result = await connection.request(
            client.text_document_references_async(params), "textDocument/references"
        )
        return await self.answers.locations(result, rel)

    async def symbols(self, query: str | None, path: str | None) -> Symbols:
        if path is not None:
            rel = self.workspace.relative(path)
            connection, _ = await self._serving(rel, "document_symbol_provider")
            client = await connection.ensure()
            params = types.DocumentSymbolParams(self._document(rel))
            result = await connection.request(
                client.text_document_document_symbol_async(params), "textDocument/documentSymbol"
            )
            found = flatten_symbols(list(result or []), rel, self.answers.shown_path)
            if query:
                found = [s for s in found if query.lower() in s.name.lower()]
            return await self.answers.screen.symbols(found[:MAX_RESULTS], (rel,))
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
            found += flatten_symbols(list(result or []), "", self.answers.shown_path)
        if not asked:
            why = "; ".join(dict.fromkeys(reasons)) or (
                "no language server can search this workspace's symbols (no file here matches "
                "a server in languageServers)"
            )
            raise ToolError(ErrorCode.NOT_FOUND, why)
        answer = await self.answers.screen.symbols(sorted(set(found), key=symbol_order), ())
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
            self._document(rel), self._position(text, line, column), new_name
        )
        client = await connection.ensure()
        edit = await connection.request(
            client.text_document_rename_async(params), "textDocument/rename"
        )
        if edit is None:
            raise ToolError(
                ErrorCode.NOT_FOUND, "the language server found nothing to rename there"
            )
        return await self.answers.file_changes(edit)


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
