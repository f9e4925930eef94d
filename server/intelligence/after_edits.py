"""Problems after edits: the turn's new problems in the files it edited, for the model.

Before a turn's edits run, the problems of the files they name are taken as
the baseline (and those of the files a rename is about to change, when it
knows them); after the turn, the files that changed are checked at their new
version (waiting at most the settle time) and only the problems that were not
there before are reported: in the next observation, and as a `problems` event.
Nothing here ever breaks a run.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agentls.contracts.tooling import Risk, ToolError, ToolIntent
from agentls.session import events as ev
from agentls.session.records import ProblemRecord
from agentls.workspace.language import Problem

if TYPE_CHECKING:
    from agentls.intelligence.router import RoutedIntelligence

log = logging.getLogger(__name__)
MAX_SHOWN = 30

RiskOf = Callable[[str], Risk | None]
Append = Callable[[ev.Problems], object]
ProblemKey = tuple[str, str, str, str]


class Baseline:
    """The problems of files before a turn's edits, by file, and what the edits added."""

    def __init__(self, intelligence: RoutedIntelligence) -> None:
        self.intelligence = intelligence
        self.versions: dict[str, str | None] = {}
        self.problems: dict[str, Counter[ProblemKey]] = {}

    @property
    def taken(self) -> bool:
        return bool(self.versions or self.problems)

    def clear(self) -> None:
        self.versions, self.problems = {}, {}

    async def capture(self, rels: Sequence[str]) -> None:
        """Remember these files' problems before a turn edits them."""
        intelligence = self.intelligence
        for rel in rels:
            if rel in self.versions or intelligence.why_none(rel) is not None:
                continue
            self.versions[rel] = await intelligence.workspace.version(rel)
            settle = intelligence.problem_settings.settle_seconds
            report = await intelligence.check([rel], settle, "hint")
            self.problems[rel] = Counter(_key(p) for p in report.problems)

    async def introduced(self) -> tuple[list[Problem], list[str]]:
        """Problems the edits since ``capture`` added to the files they changed, and the
        files whose verdict did not settle in time; the baseline starts afresh."""
        versions, problems = self.versions, self.problems
        self.clear()
        intelligence = self.intelligence
        changed = [
            rel for rel, version in versions.items()
            if await intelligence.workspace.version(rel) != version
        ]  # fmt: skip
        if not changed:
            return [], []
        settings = intelligence.problem_settings
        report = await intelligence.check(changed, settings.settle_seconds, settings.severity)
        new: list[Problem] = []
        for rel in changed:
            before = Counter(problems.get(rel, Counter()))
            for problem in (p for p in report.problems if p.path == rel):
                key = _key(problem)
                if before[key] > 0:
                    before[key] -= 1
                else:
                    new.append(problem)
        shown, _ = await intelligence.screen.problems(new, ())  # no call named them
        return shown, report.unsettled


class ProblemsAfterEdits:
    """A TurnHooks object; the conversation chains it after the checkpointer."""

    def __init__(self, intelligence: RoutedIntelligence, risk_of: RiskOf, append: Append) -> None:
        self.intelligence = intelligence
        self.baseline = Baseline(intelligence)
        self.risk_of = risk_of
        self.append = append
        intelligence.before_changes(self._changes_coming)

    async def _changes_coming(self, rels: Sequence[str]) -> None:
        """A rename is about to change these files: their problems before it lands."""
        if not self.intelligence.problem_settings.after_edits:
            return
        try:
            await self.baseline.capture(rels)
        except Exception as exc:  # never a reason for a rename to fail
            log.warning("problems before the rename were not taken: %r", exc)

    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        if not self.intelligence.problem_settings.after_edits:
            return
        try:
            paths = self._edited_paths(intents)
            if paths:  # none in a turn of reads: nothing to take a baseline of
                await self.baseline.capture(paths)
        except Exception as exc:  # never a reason for a run to fail
            log.warning("problems before the edit were not taken: %r", exc)

    def _edited_paths(self, intents: Sequence[ToolIntent]) -> list[str]:
        paths = []
        for intent in intents:
            path = intent.input.get("path")
            if self.risk_of(intent.name) is not Risk.WRITE or not isinstance(path, str):
                continue
            try:
                paths.append(self.intelligence.workspace.relative(path))
            except ToolError:
                continue
        return paths

    async def after_act(self, run_id: str, turn: int) -> list[str]:
        if not self.intelligence.problem_settings.after_edits:
            self.baseline.clear()
            return []
        if not self.baseline.taken:
            return []  # no baseline taken since the last check (a turn of reads): nothing new
        try:
            problems, unsettled = await self.baseline.introduced()
        except Exception as exc:
            log.warning("problems after the edit were not checked: %r", exc)
            return []
        if not problems:
            return []
        note = render_note(problems, unsettled)
        self.append(ev.Problems(
            run=run_id, turn=turn,
            problems=[_as_record(p) for p in problems], unsettled=list(unsettled), note=note,
        ))  # fmt: skip
        return [note]


def render_note(problems: Sequence[Problem], unsettled: Sequence[str]) -> str:
    lines = [p.render() for p in problems[:MAX_SHOWN]]
    if len(problems) > MAX_SHOWN:
        lines.append(f"... and {len(problems) - MAX_SHOWN} more (use the problems tool)")
    head = "New problems after this turn's edits (not there before):"
    tail = ""
    if unsettled:
        tail = f"\n(the checker had not finished with {', '.join(unsettled)}; there may be more)"
    return head + "\n" + "\n".join(lines) + tail


def _as_record(problem: Problem) -> ProblemRecord:
    return ProblemRecord(
        path=problem.path, line=problem.line, message=problem.message,
        source=problem.source, severity=problem.severity, code=problem.code,
    )  # fmt: skip


def _key(problem: Problem) -> ProblemKey:
    # Lines move when text is inserted above; the same message is the same problem.
    return (problem.severity, problem.source, problem.code, problem.message)
