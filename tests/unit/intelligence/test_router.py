"""The router's fallback, with two stand-in answerers: "auto" takes the editor where it
answers and agentls's own servers where it does not (nor for the files it does not check),
"editor" reports what the editor left unanswered, "agentls" never asks the editor."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.intelligence.answers import Answers, Unanswered
from agentls.intelligence.config import ProblemsSettings
from agentls.intelligence.router import RoutedIntelligence, Source
from agentls.workspace.language import (
    CodeLocation,
    FileChange,
    Locations,
    Problem,
    ProblemReport,
    Symbols,
)
from agentls.workspace.local import LocalWorkspace

METHODS = ("problems", "definition", "references", "symbols", "rename")


class StandIn:
    """An answerer that says who it is in every answer, and records what it was asked."""

    def __init__(
        self,
        name: str,
        *,
        offers: Sequence[str] = METHODS,
        silent: Sequence[str] = (),  # questions it leaves unanswered
        checks: Sequence[str] = ("a.py", "b.py"),  # the files it checks
    ) -> None:
        self.name = name
        self.offered = set(offers)
        self.silent = set(silent)
        self.checks = set(checks)
        self.asked: list[str] = []

    def offers(self, method: str) -> bool:
        return method in self.offered

    def configure(self, *settings: Any) -> None:
        return None

    def why_none(self, rel: str) -> str | None:
        return None if rel in self.checks else f"{self.name} cannot check {rel}"

    def _answer(self, method: str) -> None:
        self.asked.append(method)
        if method in self.silent:
            raise Unanswered(self.name, "a request for problems" if method == "problems"
                             else f"agentls/{method}")  # fmt: skip

    async def check(self, rels: Sequence[str], wait: float, least: str) -> ProblemReport:
        self._answer("problems")
        found = [Problem(r, 1, f"{self.name} says so", self.name, "error") for r in rels
                 if r in self.checks]  # fmt: skip
        return ProblemReport(found, {r: f"{self.name} cannot" for r in rels
                                     if r not in self.checks}, [])  # fmt: skip

    async def problems(self, paths: Sequence[str] | None) -> ProblemReport:
        return await self.check(list(paths or self.checks), 0, "hint")

    async def definition(self, path: str, line: int, column: int) -> Locations:
        self._answer("definition")
        return Locations([CodeLocation(path, line, self.name)])

    async def references(self, path: str, line: int, column: int) -> Locations:
        self._answer("references")
        return Locations([CodeLocation(path, line, self.name)])

    async def symbols(self, query: str | None, path: str | None) -> Symbols:
        self._answer("symbols")
        return Symbols([])

    async def rename(self, path: str, line: int, column: int, new_name: str) -> list[FileChange]:
        self._answer("rename")
        return [FileChange(path, "old", f"by {self.name}", "v1")]


@pytest.fixture
def answers(tmp_path: Path) -> Answers:
    for name in ("a.py", "b.py", "notes.md"):
        (tmp_path / name).write_text("x\n")
    return Answers(LocalWorkspace(tmp_path.resolve()))


def route(
    answers: Answers, own: StandIn, editor: StandIn | None, source: Source = "auto"
) -> RoutedIntelligence:
    return RoutedIntelligence(answers, own, editor, ProblemsSettings(), source=source)


async def test_auto_asks_the_editor_where_it_answers_and_nobody_else(answers: Answers) -> None:
    own, editor = StandIn("agentls"), StandIn("Code")
    found = await route(answers, own, editor).definition("a.py", 1, 0)
    assert found.found[0].text == "Code" and own.asked == []


async def test_auto_falls_back_to_its_own_servers_when_the_editor_gives_no_answer(
    answers: Answers,
) -> None:
    own, editor = StandIn("agentls"), StandIn("Code", silent=["references"])
    found = await route(answers, own, editor).references("a.py", 1, 0)
    assert found.found[0].text == "agentls" and editor.asked == own.asked == ["references"]


async def test_what_the_editor_does_not_offer_goes_to_agentls(answers: Answers) -> None:
    own, editor = StandIn("agentls"), StandIn("Code", offers=["problems"])
    await route(answers, own, editor).symbols("x", None)
    assert editor.asked == [] and own.asked == ["symbols"]


async def test_editor_reports_the_unanswered_question_and_starts_no_server_for_it(
    answers: Answers,
) -> None:
    own, editor = StandIn("agentls"), StandIn("Code", silent=["definition", "problems"])
    routed = route(answers, own, editor, "editor")
    with pytest.raises(ToolError, match=r'Code did not answer agentls/definition.*"editor"'):
        await routed.definition("a.py", 1, 0)
    with pytest.raises(ToolError, match=r"Code did not answer a request for problems"):
        await routed.problems(None)
    report = await routed.problems(["a.py"])
    assert report.unchecked == {"a.py": "Code did not answer a request for problems"}
    assert own.asked == []


async def test_agentls_never_asks_the_editor(answers: Answers) -> None:
    own, editor = StandIn("agentls"), StandIn("Code")
    routed = route(answers, own, editor, "agentls")
    await routed.definition("a.py", 1, 0)
    await routed.problems(["a.py"])
    assert editor.asked == [] and own.asked == ["definition", "problems"]


async def test_without_an_editor_agentls_answers_whatever_the_setting(answers: Answers) -> None:
    own = StandIn("agentls")
    assert (await route(answers, own, None, "editor").definition("a.py", 1, 0)).found
    assert own.asked == ["definition"]


async def test_files_the_editor_does_not_check_are_checked_by_agentls(answers: Answers) -> None:
    own = StandIn("agentls", checks=["b.py"])
    editor = StandIn("Code", checks=["a.py"])
    report = await route(answers, own, editor).problems(["a.py", "b.py", "notes.md"])
    assert [(p.path, p.source) for p in report.problems] == [("a.py", "Code"), ("b.py", "agentls")]
    assert report.unchecked == {"notes.md": "agentls cannot"}
    only_editor = await route(answers, own, editor, "editor").problems(["a.py", "b.py"])
    assert [p.source for p in only_editor.problems] == ["Code"]
    assert only_editor.unchecked == {"b.py": "Code cannot"}


async def test_a_rename_the_editor_leaves_unanswered(answers: Answers) -> None:
    editor = StandIn("Code", silent=["rename"])
    (change,) = await route(answers, StandIn("agentls"), editor).rename("a.py", 1, 0, "y")
    assert change.new_text == "by agentls"
    with pytest.raises(ToolError) as nothing:  # and agentls has no server for it either
        await route(answers, StandIn("agentls", checks=[]), editor).rename("a.py", 1, 0, "y")
    assert nothing.value.code is ErrorCode.NOT_FOUND
    assert str(nothing.value) == "Code found nothing to rename there"


async def test_the_files_a_rename_will_change_are_told_before_it_lands(answers: Answers) -> None:
    routed = route(answers, StandIn("agentls"), StandIn("Code"))
    told: list[list[str]] = []

    async def listener(rels: Sequence[str]) -> None:
        told.append(list(rels))

    routed.before_changes(listener)
    await routed.rename("a.py", 1, 0, "y")
    assert told == [["a.py"]]


async def test_a_baseline_asks_only_for_problems_where_something_checks(
    answers: Answers,
) -> None:
    own, editor = StandIn("agentls"), StandIn("Code", offers=["definition"])
    assert route(answers, own, editor).why_none("notes.md") == "agentls cannot check notes.md"
    assert route(answers, own, editor, "editor").why_none("a.py") == (
        "Code does not report problems to agentls"
    )
    assert route(answers, own, StandIn("Code")).why_none("notes.md") is None


async def test_open_files_problems_the_editor_leaves_unanswered_come_from_agentls(
    answers: Answers,
) -> None:
    own, editor = StandIn("agentls"), StandIn("Code", silent=["problems"])
    report = await route(answers, own, editor).problems(None)
    assert {p.source for p in report.problems} == {"agentls"}
    assert editor.asked == own.asked == ["problems"]  # the editor is asked once, not again
