"""Language intelligence from the editor itself: the `agentls/*` request family.

An editor that already runs language support (VS Code, a Neovim or Emacs with
their own LSP clients) answers the Workspace's language questions itself, so
no second server starts for what the person already sees. The client declares
the requests it answers (`experimental.agentls.intelligence`, see
docs/editor-intelligence.md); `languageIntelligence` chooses: "auto" (the
editor where it answers, agentls's own servers for the rest), "editor" (the
editor only), "agentls" (agentls's own servers only). The editor's answers are
screened for secret files as the servers' are (`withholding`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.intelligence.lazy import LazyModule
from agentls.intelligence.positions import line_at, utf16_column
from agentls.intelligence.service import (
    MAX_RESULTS,
    Source,
    WorkspaceIntelligence,
    _flatten,
    _problem,
    _symbol_order,
)
from agentls.workspace.interface import Workspace
from agentls.workspace.language import (
    FileChange,
    Locations,
    Problem,
    ProblemReport,
    Symbols,
)

if TYPE_CHECKING:
    from lsprotocol import types

    from agentls.intelligence.pool import ServerPool
else:
    types = LazyModule("lsprotocol.types")

log = logging.getLogger(__name__)
METHODS = ("problems", "definition", "references", "symbols", "rename")
REQUEST_SECONDS = 10.0
RENAME_SECONDS = 30.0
# Beyond the settle time the editor waits for its checkers: the trip there and back.
PROBLEMS_MARGIN_SECONDS = 5.0
FIRST_PAUSE_SECONDS = 0.1
_RANK = {"error": 1, "warning": 2, "information": 3, "hint": 4}


class EditorLanguage(Protocol):
    """The connected editor's own intelligence (the LSP face implements it)."""

    @property
    def name(self) -> str:
        """How the person knows the editor ("VS Code"), for notes and reasons."""
        ...

    def offers(self, method: str) -> bool:
        """Whether the editor answers ``agentls/<method>``."""
        ...

    async def ask(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        """The editor's answer as plain JSON; None when it has none (failed, late)."""
        ...


class EditorIntelligence(WorkspaceIntelligence):
    """Routes each question to the editor when it answers it, else to agentls's servers."""

    def __init__(
        self,
        hub: ServerPool,
        workspace: Workspace,
        servers: Mapping[str, LanguageServerConfig | None],
        problems: ProblemsSettings,
        *,
        editor: EditorLanguage,
        source: Source = "auto",
    ) -> None:
        super().__init__(hub, workspace, servers, problems, source=source)
        self.editor = editor

    def uses_editor(self, method: str) -> bool:
        return self.source != "agentls" and self.editor.offers(method)

    def _not_answered(self, what: str) -> ToolError:
        return ToolError(
            ErrorCode.EXECUTION_FAILED,
            f'{self.editor.name} did not answer {what} (languageIntelligence is "editor": '
            "agentls starts no language server of its own)",
            retryable=False,
        )

    def _editor_only(self, method: str) -> bool:
        """The editor should answer but cannot: agentls's own servers must not step in."""
        return self.source == "editor"

    # -- problems --------------------------------------------------------------------

    def why_none(self, rel: str) -> str | None:
        if self.uses_editor("problems"):
            return None  # the editor is asked; it says itself what it does not check
        if self.source == "editor":
            return f"{self.editor.name} does not report problems to agentls"
        return super().why_none(rel)

    async def problems(self, paths: Sequence[str] | None) -> ProblemReport:
        if paths is not None or not self.uses_editor("problems"):
            return await super().problems(paths)
        wait = max(self.problem_settings.settle_seconds, 5.0)
        answer = await self._ask_problems(None, wait)
        if answer is None:
            if self._editor_only("problems"):
                raise self._not_answered("a request for problems")
            return await super().problems(None)
        return await self.screen.report(self._report(answer, [], "hint"), ())

    async def _problems(self, rels: Sequence[str], wait: float, least: str) -> ProblemReport:
        if not rels or not self.uses_editor("problems"):
            return await super()._problems(rels, wait, least)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        answer = await self._ask_problems(list(rels), wait)
        if answer is None:
            if self._editor_only("problems"):
                why = f"{self.editor.name} did not answer a request for problems"
                return ProblemReport([], dict.fromkeys(rels, why), [])
            return await super()._problems(rels, wait, least)
        report = self._report(answer, rels, least)
        pause = FIRST_PAUSE_SECONDS
        # Editors that answer at once (Neovim, Emacs) say "not settled yet": ask again
        # about those files until their checkers have spoken or the settle time is up.
        while report.unsettled and (left := deadline - loop.time()) > 0:
            await asyncio.sleep(min(pause, left))
            pause *= 2
            again = await self._ask_problems(report.unsettled, max(deadline - loop.time(), 0))
            if again is None:
                break
            fresh = self._report(again, report.unsettled, least)
            redone = set(report.unsettled)
            report = ProblemReport(
                [p for p in report.problems if p.path not in redone] + fresh.problems,
                {**{k: v for k, v in report.unchecked.items() if k not in redone},
                 **fresh.unchecked},
                fresh.unsettled,
            )  # fmt: skip
            report.problems.sort(key=lambda p: (p.path, p.line, p.message))
        rest = sorted(report.unchecked)
        if not rest or self.source == "editor":
            return report
        ours = await super()._problems(rest, wait, least)  # what the editor does not check
        return ProblemReport(
            sorted([*report.problems, *ours.problems], key=lambda p: (p.path, p.line, p.message)),
            ours.unchecked,
            sorted({*report.unsettled, *ours.unsettled}),
        )

    async def _ask_problems(self, rels: list[str] | None, wait: float) -> list[Any] | None:
        params = {
            "uris": None if rels is None else [self.uri(rel) for rel in rels],
            "settleSeconds": wait,
        }
        answer = await self.editor.ask("problems", params, wait + PROBLEMS_MARGIN_SECONDS)
        return answer if isinstance(answer, list) else None

    def _report(self, answer: list[Any], asked: Sequence[str], least: str) -> ProblemReport:
        found: list[Problem] = []
        unsettled: list[str] = []
        seen: set[str] = set()
        checked: set[str] = set()
        for item in answer:
            rel = self._rel_of(item.get("uri", "")) if isinstance(item, dict) else None
            if rel is None:  # outside the workspace, or not a file
                continue
            seen.add(rel)
            if item.get("checked") is False:
                continue
            checked.add(rel)
            if item.get("settled") is False:
                unsettled.append(rel)
            for diagnostic in _structure(item.get("diagnostics") or [], list[types.Diagnostic]):
                if int(diagnostic.severity or 1) <= _RANK[least]:
                    found.append(_problem(rel, diagnostic, self.editor.name))
        why = f"{self.editor.name} has nothing that checks it"
        unchecked = {rel: why for rel in [*asked, *seen] if rel not in checked}
        found.sort(key=lambda p: (p.path, p.line, p.message))
        return ProblemReport(found, unchecked, sorted(set(unsettled)))

    # -- navigation ------------------------------------------------------------------

    async def _at(self, path: str, line: int, column: int) -> tuple[str, dict[str, Any]]:
        rel = self.workspace.relative(path)
        text = await self._text(rel)
        if text is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist")
        character = utf16_column(line_at(text, line - 1), column)
        return rel, {
            "textDocument": {"uri": self.uri(rel)},
            "position": {"line": line - 1, "character": character},
        }

    async def _ask(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        """The editor's answer; None when agentls's own servers should answer instead."""
        answer = await self.editor.ask(method, params, timeout)
        if answer is None and self._editor_only(method):
            raise self._not_answered(f"agentls/{method}")
        return answer

    async def definition(self, path: str, line: int, column: int) -> Locations:
        if not self.uses_editor("definition"):
            return await super().definition(path, line, column)
        rel, params = await self._at(path, line, column)
        answer = await self._ask("definition", params, REQUEST_SECONDS)
        if answer is None:
            return await super().definition(path, line, column)
        return await self._locations(_structure(answer, list[types.Location]), rel)

    async def references(self, path: str, line: int, column: int) -> Locations:
        if not self.uses_editor("references"):
            return await super().references(path, line, column)
        rel, params = await self._at(path, line, column)
        params["context"] = {"includeDeclaration": True}
        answer = await self._ask("references", params, REQUEST_SECONDS)
        if answer is None:
            return await super().references(path, line, column)
        return await self._locations(_structure(answer, list[types.Location]), rel)

    async def symbols(self, query: str | None, path: str | None) -> Symbols:
        if not self.uses_editor("symbols"):
            return await super().symbols(query, path)
        params: dict[str, Any] = {"query": query or ""}
        rel = None if path is None else self.workspace.relative(path)
        if rel is not None:
            params["textDocument"] = {"uri": self.uri(rel)}
        answer = await self._ask("symbols", params, REQUEST_SECONDS)
        if answer is None:
            return await super().symbols(query, path)
        items = _structure(answer, list[types.SymbolInformation])
        found = _flatten(items, "", self._shown_path)
        if rel is not None and query:
            found = [s for s in found if query.lower() in s.name.lower()]
        if rel is None:
            found = sorted(set(found), key=_symbol_order)
        screened = await self.screen.symbols(found, () if rel is None else (rel,))
        return Symbols(screened.found[:MAX_RESULTS], screened.withheld)

    async def rename(self, path: str, line: int, column: int, new_name: str) -> list[FileChange]:
        if not self.uses_editor("rename"):
            return await super().rename(path, line, column, new_name)
        _, params = await self._at(path, line, column)
        params["newName"] = new_name
        answer = await self._ask("rename", params, RENAME_SECONDS)
        if answer is None:
            if self.source == "auto" and self.why_none_own(self.workspace.relative(path)) is None:
                return await super().rename(path, line, column, new_name)
            raise ToolError(
                ErrorCode.NOT_FOUND, f"{self.editor.name} found nothing to rename there"
            )
        edits = {
            item.get("uri", ""): _structure(item.get("edits") or [], list[types.TextEdit])
            for item in (answer if isinstance(answer, list) else [])
            if isinstance(item, dict)
        }
        changes = await self._file_changes(types.WorkspaceEdit(changes=edits))
        if self.problem_settings.after_edits:  # their problems before the rename lands
            await self.capture([c.path for c in changes])
        return sorted(changes, key=lambda c: c.path)


def _structure(data: Any, kind: Any) -> Any:
    """Wire JSON as lsprotocol types; what does not fit is a failed answer."""
    from lsprotocol import converters

    try:
        return converters.get_converter().structure(data, kind)
    except Exception as exc:
        log.info("the editor's answer does not fit %s: %r", kind, exc)
        raise ToolError(
            ErrorCode.EXECUTION_FAILED, f"the editor's answer was not understood ({exc})"
        ) from None
