"""The problems-after-edits hook: a turn of reads asks the language servers nothing, and a
baseline taken during the turn (a rename's) is still checked afterwards."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from agentls.contracts.tooling import Risk, ToolIntent
from agentls.intelligence.after_edits import ProblemsAfterEdits
from agentls.intelligence.router import ChangesListener
from agentls.workspace.language import Problem, ProblemReport, Withheld

RISKS = {"read_file": Risk.READ, "edit_file": Risk.WRITE}


class FakeIntelligence:
    """A session's intelligence as the baseline asks it: every file it checks has one new
    problem after any edit."""

    def __init__(self) -> None:
        self.problem_settings = SimpleNamespace(
            after_edits=True, settle_seconds=0, severity="error"
        )
        self.versions: dict[str, str] = {}
        self.workspace = SimpleNamespace(relative=lambda path: path, version=self._version)
        self.screen = SimpleNamespace(problems=self._screened)
        self.checked: list[list[str]] = []
        self.listeners: list[ChangesListener] = []

    async def _version(self, rel: str) -> str:
        return self.versions.get(rel, "v1")

    async def _screened(
        self, found: Sequence[Problem], asked: Any
    ) -> tuple[list[Problem], Withheld]:
        return list(found), Withheld()

    def why_none(self, rel: str) -> None:
        return None

    async def check(self, rels: Sequence[str], wait: float, least: str) -> ProblemReport:
        self.checked.append(list(rels))
        found = [Problem(rel, 1, "undefined name 'x'", "ruff", "error", "F821")
                 for rel in rels if self.versions.get(rel, "v1") != "v1"]  # fmt: skip
        return ProblemReport(found, {}, [])

    def before_changes(self, listener: ChangesListener) -> None:
        self.listeners.append(listener)

    def edit(self, rel: str) -> None:
        self.versions[rel] = "v2"


def hook(intelligence: FakeIntelligence, events: list[Any]) -> ProblemsAfterEdits:
    return ProblemsAfterEdits(intelligence, RISKS.get, events.append)  # type: ignore[arg-type]


async def test_a_turn_of_reads_asks_nothing() -> None:
    intelligence, events = FakeIntelligence(), []
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "read_file", {"path": "a.py"})])
    assert await problems.after_act("r", 1) == []
    assert intelligence.checked == [] and events == []


async def test_an_edit_turn_is_checked() -> None:
    intelligence, events = FakeIntelligence(), []
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "edit_file", {"path": "a.py"})])
    intelligence.edit("a.py")
    notes = await problems.after_act("r", 1)
    assert intelligence.checked == [["a.py"], ["a.py"]]  # before the edit and after it
    assert len(notes) == 1 and "a.py" in notes[0] and len(events) == 1


async def test_a_baseline_a_rename_took_in_a_turn_of_reads_is_checked() -> None:
    intelligence, events = FakeIntelligence(), []
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "read_file", {"path": "a.py"})])
    (changes_coming,) = intelligence.listeners
    await changes_coming(["b.py"])  # as a rename does before its changes land
    intelligence.edit("b.py")
    notes = await problems.after_act("r", 1)
    assert intelligence.checked == [["b.py"], ["b.py"]]
    assert len(notes) == 1 and "b.py" in notes[0]
    assert await problems.after_act("r", 2) == [] and len(intelligence.checked) == 2


async def test_a_failure_naming_the_edited_files_never_breaks_the_turn() -> None:
    intelligence, events = FakeIntelligence(), []

    def broken(path: str) -> str:
        raise RuntimeError("the workspace is gone")

    intelligence.workspace = SimpleNamespace(relative=broken)
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "edit_file", {"path": "a.py"})])
    assert await problems.after_act("r", 1) == [] and intelligence.checked == []


async def test_a_baseline_that_fails_never_breaks_the_rename() -> None:
    intelligence, events = FakeIntelligence(), []

    async def broken(rel: str) -> str:
        raise OSError("the disk is gone")

    intelligence.workspace = SimpleNamespace(relative=lambda path: path, version=broken)
    problems = hook(intelligence, events)
    (changes_coming,) = intelligence.listeners
    await changes_coming(["b.py"])  # logged, not raised
    assert await problems.after_act("r", 1) == []
