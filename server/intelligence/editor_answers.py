"""The editor's own language intelligence as a session's `LanguageIntelligence`.

An editor that already runs language support (VS Code, a Neovim or Emacs with
their own LSP clients) answers the `agentls/*` requests it declares
(`experimental.agentls.intelligence`, see docs/editor-intelligence.md), so no
second server starts for what the person already sees. Every request is
bounded; no answer is `Unanswered`, which the router (`router`) turns into
agentls's own servers or a reported failure, as `languageIntelligence` says.
Answers are converted by `conversions` and `answers`, so nothing from a secret
file comes through (`withholding`), as with agentls's own servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.intelligence.answers import MAX_RESULTS, Answers, Unanswered, sorted_problems
from agentls.intelligence.config import ProblemsSettings
from agentls.intelligence.conversions import (
    RANKS,
    flatten_symbols,
    from_wire,
    line_at,
    problem,
    symbol_order,
    utf16_column,
)
from agentls.intelligence.lazy import LazyModule
from agentls.workspace.language import (
    FileChange,
    Locations,
    Problem,
    ProblemReport,
    Severity,
    Symbols,
)

if TYPE_CHECKING:
    from lsprotocol import types
else:
    types = LazyModule("lsprotocol.types")

METHODS = ("problems", "definition", "references", "symbols", "rename")
REQUEST_SECONDS = 10.0
RENAME_SECONDS = 30.0
# Beyond the settle time the editor waits for its checkers: the trip there and back.
PROBLEMS_MARGIN_SECONDS = 5.0
FIRST_PAUSE_SECONDS = 0.1
PROBLEMS_ASKED = "a request for problems"


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


class EditorAnswers:
    """One session's questions, asked of the editor."""

    def __init__(
        self, editor: EditorLanguage, answers: Answers, problems: ProblemsSettings
    ) -> None:
        self.editor = editor
        self.answers = answers
        self.workspace = answers.workspace
        self.problem_settings = problems

    @property
    def name(self) -> str:
        return self.editor.name

    def offers(self, method: str) -> bool:
        return self.editor.offers(method)

    def configure(self, problems: ProblemsSettings) -> None:
        self.problem_settings = problems

    def why_none(self, rel: str) -> str | None:
        return None  # the editor is asked; it says itself what it does not check

    # -- problems --------------------------------------------------------------------

    async def problems(self, paths: Sequence[str] | None) -> ProblemReport:
        wait = max(self.problem_settings.settle_seconds, 5.0)
        if paths is not None:
            rels = [self.workspace.relative(p) for p in paths]
            return await self.answers.screen.report(await self.check(rels, wait, "hint"), rels)
        answer = await self._ask_problems(None, wait)
        if answer is None:
            raise Unanswered(self.name, PROBLEMS_ASKED)
        return await self.answers.screen.report(self._report(answer, [], "hint"), ())

    async def check(self, rels: Sequence[str], wait: float, least: Severity) -> ProblemReport:
        """The editor's problems of these files (at least ``least``, its checkers given
        ``wait`` to settle), not yet screened; files it does not check are `unchecked`."""
        if not rels:
            return ProblemReport([], {}, [])
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        answer = await self._ask_problems(list(rels), wait)
        if answer is None:
            raise Unanswered(self.name, PROBLEMS_ASKED)
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
                sorted_problems([p for p in report.problems if p.path not in redone]
                                + fresh.problems),
                {**{k: v for k, v in report.unchecked.items() if k not in redone},
                 **fresh.unchecked},
                fresh.unsettled,
            )  # fmt: skip
        return report

    async def _ask_problems(self, rels: list[str] | None, wait: float) -> list[Any] | None:
        params = {
            "uris": None if rels is None else [self.answers.uri(rel) for rel in rels],
            "settleSeconds": wait,
        }
        answer = await self.editor.ask("problems", params, wait + PROBLEMS_MARGIN_SECONDS)
        return answer if isinstance(answer, list) else None

    def _report(self, answer: list[Any], asked: Sequence[str], least: Severity) -> ProblemReport:
        found: list[Problem] = []
        unsettled: list[str] = []
        seen: set[str] = set()
        checked: set[str] = set()
        for item in answer:
            rel = self.answers.rel_of(item.get("uri", "")) if isinstance(item, dict) else None
            if rel is None:  # outside the workspace, or not a file
                continue
            seen.add(rel)
            if item.get("checked") is False:
                continue
            checked.add(rel)
            if item.get("settled") is False:
                unsettled.append(rel)
            for diagnostic in self._structure(
                item.get("diagnostics") or [], list[types.Diagnostic]
            ):
                if int(diagnostic.severity or 1) <= RANKS[least]:
                    found.append(problem(rel, diagnostic, self.name))
        why = f"{self.name} has nothing that checks it"
        unchecked = {rel: why for rel in [*asked, *seen] if rel not in checked}
        return ProblemReport(sorted_problems(found), unchecked, sorted(set(unsettled)))

    # -- navigation ------------------------------------------------------------------

    async def _at(self, path: str, line: int, column: int) -> tuple[str, dict[str, Any]]:
        rel = self.workspace.relative(path)
        text = await self.answers.text(rel)
        if text is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{rel} does not exist")
        character = utf16_column(line_at(text, line - 1), column)
        return rel, {
            "textDocument": {"uri": self.answers.uri(rel)},
            "position": {"line": line - 1, "character": character},
        }

    async def _ask(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        answer = await self.editor.ask(method, params, timeout)
        if answer is None:
            raise Unanswered(self.name, f"agentls/{method}")
        return answer

    async def definition(self, path: str, line: int, column: int) -> Locations:
        rel, params = await self._at(path, line, column)
        answer = await self._ask("definition", params, REQUEST_SECONDS)
        return await self.answers.locations(self._structure(answer, list[types.Location]), rel)

    async def references(self, path: str, line: int, column: int) -> Locations:
        rel, params = await self._at(path, line, column)
        params["context"] = {"includeDeclaration": True}
        answer = await self._ask("references", params, REQUEST_SECONDS)
        return await self.answers.locations(self._structure(answer, list[types.Location]), rel)

    async def symbols(self, query: str | None, path: str | None) -> Symbols:
        params: dict[str, Any] = {"query": query or ""}
        rel = None if path is None else self.workspace.relative(path)
        if rel is not None:
            params["textDocument"] = {"uri": self.answers.uri(rel)}
        answer = await self._ask("symbols", params, REQUEST_SECONDS)
        items = self._structure(answer, list[types.SymbolInformation])
        found = flatten_symbols(items, "", self.answers.shown_path)
        if rel is not None and query:
            found = [s for s in found if query.lower() in s.name.lower()]
        if rel is None:
            found = sorted(set(found), key=symbol_order)
        screened = await self.answers.screen.symbols(found, () if rel is None else (rel,))
        return Symbols(screened.found[:MAX_RESULTS], screened.withheld)

    async def rename(self, path: str, line: int, column: int, new_name: str) -> list[FileChange]:
        _, params = await self._at(path, line, column)
        params["newName"] = new_name
        answer = await self._ask("rename", params, RENAME_SECONDS)
        edits = {
            item.get("uri", ""): self._structure(item.get("edits") or [], list[types.TextEdit])
            for item in (answer if isinstance(answer, list) else [])
            if isinstance(item, dict)
        }
        return await self.answers.file_changes(types.WorkspaceEdit(changes=edits))

    def _structure(self, data: Any, kind: Any) -> Any:
        """The answer as lsprotocol types; what does not fit is a failed answer."""
        try:
            return from_wire(data, kind)
        except ValueError as exc:
            raise ToolError(
                ErrorCode.EXECUTION_FAILED, f"the editor's answer was not understood ({exc})"
            ) from None
