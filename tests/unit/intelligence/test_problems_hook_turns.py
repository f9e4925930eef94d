"""The problems-after-edits hook: a turn of reads asks the language servers nothing, and a
baseline taken during the turn (a rename's) is still checked afterwards."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from agentls.contracts.tooling import Risk, ToolIntent
from agentls.intelligence.after_edits import ProblemsAfterEdits
from agentls.intelligence.service import Baseline
from agentls.workspace.language import Problem

RISKS = {"read_file": Risk.READ, "edit_file": Risk.WRITE}


class FakeIntelligence:
    def __init__(self) -> None:
        self.problem_settings = SimpleNamespace(after_edits=True)
        self.workspace = SimpleNamespace(relative=lambda path: path)
        self.pending = Baseline()
        self.captured: list[list[str]] = []
        self.checks = 0

    async def capture(self, rels: Sequence[str]) -> None:
        self.captured.append(list(rels))
        for rel in rels:
            self.pending.versions[rel] = "v1"

    async def introduced(self) -> tuple[list[Problem], list[str]]:
        self.checks += 1
        baseline, self.pending = self.pending, Baseline()
        found = [Problem(rel, 1, "undefined name 'x'", "ruff", "error", "F821")
                 for rel in baseline.versions]  # fmt: skip
        return found, []


def hook(intelligence: FakeIntelligence, events: list[Any]) -> ProblemsAfterEdits:
    return ProblemsAfterEdits(intelligence, RISKS.get, events.append)  # type: ignore[arg-type]


async def test_a_turn_of_reads_asks_nothing() -> None:
    intelligence, events = FakeIntelligence(), []
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "read_file", {"path": "a.py"})])
    assert await problems.after_act("r", 1) == []
    assert intelligence.captured == [] and intelligence.checks == 0 and events == []


async def test_an_edit_turn_is_checked() -> None:
    intelligence, events = FakeIntelligence(), []
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "edit_file", {"path": "a.py"})])
    notes = await problems.after_act("r", 1)
    assert intelligence.captured == [["a.py"]] and intelligence.checks == 1
    assert len(notes) == 1 and "a.py" in notes[0] and len(events) == 1


async def test_a_baseline_a_tool_took_in_a_turn_of_reads_is_checked() -> None:
    intelligence, events = FakeIntelligence(), []
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "read_file", {"path": "a.py"})])
    await intelligence.capture(["b.py"])  # as rename does while it runs
    notes = await problems.after_act("r", 1)
    assert intelligence.checks == 1 and len(notes) == 1 and "b.py" in notes[0]
    assert await problems.after_act("r", 2) == [] and intelligence.checks == 1


async def test_a_failure_naming_the_edited_files_never_breaks_the_turn() -> None:
    intelligence, events = FakeIntelligence(), []

    def broken(path: str) -> str:
        raise RuntimeError("the workspace is gone")

    intelligence.workspace = SimpleNamespace(relative=broken)
    problems = hook(intelligence, events)
    await problems.before_act("r", 1, [ToolIntent("c1", "edit_file", {"path": "a.py"})])
    assert await problems.after_act("r", 1) == [] and intelligence.captured == []
