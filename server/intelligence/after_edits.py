"""Problems after edits: the turn's new problems in the files it edited, for the model.

Before a turn's edits run, the problems of the files they name are taken as
the baseline; after the turn, the files that changed are checked at their new
version (waiting at most the settle time) and only the problems that were not
there before are reported: in the next observation, and as a `problems` event.
Nothing here ever breaks a run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agentls.contracts.tooling import Risk, ToolError, ToolIntent
from agentls.session import events as ev
from agentls.session.records import ProblemRecord
from agentls.workspace.language import Problem

if TYPE_CHECKING:
    from agentls.intelligence.service import WorkspaceIntelligence

log = logging.getLogger(__name__)
MAX_SHOWN = 30

RiskOf = Callable[[str], Risk | None]
Append = Callable[[ev.Problems], object]


class ProblemsAfterEdits:
    """A TurnHooks object; the conversation chains it after the checkpointer."""

    def __init__(
        self, intelligence: WorkspaceIntelligence, risk_of: RiskOf, append: Append
    ) -> None:
        self.intelligence = intelligence
        self.risk_of = risk_of
        self.append = append

    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        if not self.intelligence.problem_settings.after_edits:
            return
        try:
            paths = self._edited_paths(intents)
            if paths:  # none in a turn of reads: nothing to take a baseline of
                await self.intelligence.capture(paths)
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
            self.intelligence.pending.versions.clear()
            return []
        pending = self.intelligence.pending
        if not pending.versions and not pending.problems:
            return []  # no baseline taken since the last check (a turn of reads): nothing new
        try:
            problems, unsettled = await self.intelligence.introduced()
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
