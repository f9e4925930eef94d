"""Plans: the checklist the model keeps with `update_plan`, and a plan put to the person
with `propose_plan` (plan mode's way out) with the person's answer."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

from agentls.contracts.values import value

# The tool whose calls hold the checklist: the context layer pins the latest one it
# finds in the history (a compaction's summary never has to carry it).
PLAN_TOOL: Final = "update_plan"


class StepStatus(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


_MARKS = {StepStatus.PENDING: "[ ]", StepStatus.IN_PROGRESS: "[>]", StepStatus.COMPLETED: "[x]"}


@value
class PlanStep:
    step: str
    status: StepStatus


@value
class Plan:
    """The whole checklist: each update replaces the one before."""

    steps: tuple[PlanStep, ...]
    explanation: str = ""

    @property
    def done(self) -> int:
        return sum(1 for s in self.steps if s.status is StepStatus.COMPLETED)

    def checklist(self) -> list[str]:
        """One line per step: ``[x]`` completed, ``[>]`` in progress, ``[ ]`` pending."""
        return [f"{_MARKS[s.status]} {s.step}" for s in self.steps]

    def to_wire(self) -> dict[str, Any]:
        """As the `update_plan` input and the `plan` events say it."""
        return {
            "plan": [{"step": s.step, "status": s.status.value} for s in self.steps],
            "explanation": self.explanation,
        }

    @classmethod
    def from_input(cls, data: Mapping[str, Any]) -> Plan | None:
        """An `update_plan` input as the history holds it; None when it is no plan."""
        steps = data.get("plan")
        if not isinstance(steps, list) or not steps:
            return None
        parsed: list[PlanStep] = []
        for item in steps:
            if not isinstance(item, Mapping):
                return None
            text, status = item.get("step"), item.get("status")
            if not isinstance(text, str) or status not in _STATUSES:
                return None
            parsed.append(PlanStep(text, StepStatus(status)))
        explanation = data.get("explanation")
        return cls(tuple(parsed), explanation if isinstance(explanation, str) else "")


_STATUSES = frozenset(s.value for s in StepStatus)


class PlanChoice(StrEnum):
    """What the person says to a proposed plan: leave plan mode for one of two modes, or
    keep planning."""

    DEFAULT = "default"
    ACCEPT_EDITS = "accept-edits"
    KEEP_PLANNING = "keep-planning"


@value
class PlanProposal:
    """A plan the model put to the person (a `propose_plan` call), in markdown."""

    call_id: str
    plan: str


@value
class PlanAnswer:
    choice: PlanChoice
    note: str = ""  # for keep-planning: what the person tells the model
    # False: no person answered (no terminal, --yes, a dismissed or unanswered prompt):
    # the choice is keep-planning and the run ends with the plan as its answer.
    person: bool = True

    @property
    def switches(self) -> bool:
        """Leaves plan mode: only ever at a person's word."""
        return self.person and self.choice is not PlanChoice.KEEP_PLANNING


NO_PERSON = PlanAnswer(PlanChoice.KEEP_PLANNING, person=False)
