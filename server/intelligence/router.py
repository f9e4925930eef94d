"""One session's `LanguageIntelligence`: each question to the editor or to agentls's own
servers, as `languageIntelligence` says.

"auto" (the default): the editor for the requests it answers, agentls's own
servers for the others, for the files the editor says it does not check, and
when the editor gives no answer in time. "editor": the editor for what it
answers, and a question it leaves unanswered fails with that reason (no server
of agentls's starts for it). "agentls": agentls's own servers only. Without an
editor (the command line, ACP) agentls's own servers answer everything.

Each answerer screens its own answers for secret files (`answers`), and so
does the router where it joins two of them (problems).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Literal, Protocol, TypeVar

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.intelligence.answers import Answers, Unanswered, sorted_problems
from agentls.intelligence.config import LanguageServerConfig, ProblemsSettings
from agentls.intelligence.withholding import SecretScreen
from agentls.workspace.interface import Workspace
from agentls.workspace.language import (
    FileChange,
    LanguageIntelligence,
    Locations,
    ProblemReport,
    Severity,
    Symbols,
)

# Who answers the Workspace's language questions (the `languageIntelligence` setting).
Source = Literal["auto", "editor", "agentls"]
T = TypeVar("T")
# Told the files a rename is about to change, before it lands.
ChangesListener = Callable[[Sequence[str]], Awaitable[None]]


class Answerer(LanguageIntelligence, Protocol):
    """An implementation the router composes."""

    def why_none(self, rel: str) -> str | None:
        """Why it cannot check ``rel``, or None when it may."""
        ...

    async def check(self, rels: Sequence[str], wait: float, least: Severity) -> ProblemReport:
        """The problems of these files, not yet screened (the router screens the whole)."""
        ...


class OwnAnswerer(Answerer, Protocol):
    """agentls's own servers (`own_servers.OwnServers`)."""

    def configure(
        self, servers: Mapping[str, LanguageServerConfig | None], problems: ProblemsSettings
    ) -> None: ...


class EditorAnswerer(Answerer, Protocol):
    """The editor (`editor_answers.EditorAnswers`): it may leave a question `Unanswered`."""

    @property
    def name(self) -> str: ...

    def offers(self, method: str) -> bool: ...

    def configure(self, problems: ProblemsSettings) -> None: ...


class RoutedIntelligence:
    def __init__(
        self,
        answers: Answers,
        own: OwnAnswerer,
        editor: EditorAnswerer | None,
        problems: ProblemsSettings,
        *,
        source: Source = "auto",
    ) -> None:
        self.answers = answers
        self.own = own
        self.editor = editor
        self.problem_settings = problems
        self.source: Source = source
        self._listeners: list[ChangesListener] = []

    @property
    def workspace(self) -> Workspace:
        return self.answers.workspace

    @property
    def screen(self) -> SecretScreen:
        return self.answers.screen

    def configure(
        self,
        servers: Mapping[str, LanguageServerConfig | None],
        problems: ProblemsSettings,
        *,
        source: Source = "auto",
    ) -> None:
        self.own.configure(servers, problems)
        if self.editor is not None:
            self.editor.configure(problems)
        self.problem_settings = problems
        self.source = source

    def before_changes(self, listener: ChangesListener) -> None:
        """Be told the files a rename is about to change (the problems baseline takes
        their problems then)."""
        self._listeners.append(listener)

    # -- who answers -----------------------------------------------------------------

    def _editor_for(self, method: str) -> EditorAnswerer | None:
        editor = self.editor
        if editor is None or self.source == "agentls" or not editor.offers(method):
            return None
        return editor

    def _reported(self, unanswered: Unanswered) -> ToolError:
        return ToolError(
            ErrorCode.EXECUTION_FAILED,
            f'{unanswered} (languageIntelligence is "editor": agentls starts no language '
            "server of its own)",
        )

    async def _route(self, method: str, ask: Callable[[Answerer], Awaitable[T]]) -> T:
        editor = self._editor_for(method)
        if editor is not None:
            try:
                return await ask(editor)
            except Unanswered as unanswered:
                if self.source == "editor":
                    raise self._reported(unanswered) from None
        return await ask(self.own)

    # -- problems --------------------------------------------------------------------

    def why_none(self, rel: str) -> str | None:
        """Why nothing can check ``rel``, or None when something may."""
        if self._editor_for("problems") is not None:
            return None
        if self.editor is not None and self.source == "editor":
            return f"{self.editor.name} does not report problems to agentls"
        return self.own.why_none(rel)

    async def problems(self, paths: Sequence[str] | None) -> ProblemReport:
        if paths is None:  # what is open: each answerer knows its own
            return await self._route("problems", lambda answerer: answerer.problems(None))
        wait = max(self.problem_settings.settle_seconds, 5.0)
        rels = [self.workspace.relative(p) for p in paths]  # the gate asked about these
        return await self.screen.report(await self.check(rels, wait, "hint"), rels)

    async def check(self, rels: Sequence[str], wait: float, least: Severity) -> ProblemReport:
        """The problems of these files, the editor's where it checks them, else agentls's
        own servers'; not yet screened."""
        editor = self._editor_for("problems")
        if not rels or editor is None:
            return await self.own.check(rels, wait, least)
        try:
            report = await editor.check(rels, wait, least)
        except Unanswered as unanswered:
            if self.source == "editor":
                return ProblemReport([], dict.fromkeys(rels, str(unanswered)), [])
            return await self.own.check(rels, wait, least)
        rest = sorted(report.unchecked)
        if not rest or self.source == "editor":
            return report
        ours = await self.own.check(rest, wait, least)  # what the editor does not check
        return ProblemReport(
            sorted_problems([*report.problems, *ours.problems]),
            ours.unchecked,
            sorted({*report.unsettled, *ours.unsettled}),
        )

    # -- navigation ------------------------------------------------------------------

    async def definition(self, path: str, line: int, column: int) -> Locations:
        return await self._route("definition", lambda a: a.definition(path, line, column))

    async def references(self, path: str, line: int, column: int) -> Locations:
        return await self._route("references", lambda a: a.references(path, line, column))

    async def symbols(self, query: str | None, path: str | None) -> Symbols:
        return await self._route("symbols", lambda a: a.symbols(query, path))

    async def rename(self, path: str, line: int, column: int, new_name: str) -> list[FileChange]:
        changes = await self._rename(path, line, column, new_name)
        for listener in self._listeners:
            await listener([c.path for c in changes])
        return changes

    async def _rename(self, path: str, line: int, column: int, new_name: str) -> list[FileChange]:
        editor = self._editor_for("rename")
        if editor is None:
            return await self.own.rename(path, line, column, new_name)
        try:
            return await editor.rename(path, line, column, new_name)
        except Unanswered as unanswered:
            if self.source == "editor":
                raise self._reported(unanswered) from None
            if self.own.why_none(self.workspace.relative(path)) is None:
                return await self.own.rename(path, line, column, new_name)
            raise ToolError(
                ErrorCode.NOT_FOUND, f"{unanswered.who} found nothing to rename there"
            ) from None
