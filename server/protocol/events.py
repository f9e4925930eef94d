"""`agentls/event`: a run as the client sees it, one model per kind.

Every event carries the run it belongs to (`sessionId`, `runId`, `turn`) and
its `kind`; clients should ignore kinds they do not know.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, TypeAdapter

from agentls.contracts.decisions import ApprovalAnswer
from agentls.permissions.modes import Mode
from agentls.protocol.common import RunOutcome, Usage
from agentls.protocol.wire import WireModel

EVENT_METHOD = "agentls/event"


class EventBase(WireModel):
    session_id: str
    run_id: str
    turn: int


class RunStarted(EventBase):
    """A run began (asked from a command, a code action or another client of the server)."""

    kind: Literal["run_started"] = "run_started"
    request: str = Field(description="what the person asked, in their own words")


class TextEvent(EventBase):
    """Answer text, coalesced (at most one notification per 50 ms, or per 4 KB)."""

    kind: Literal["text"] = "text"
    text: str


class ThoughtEvent(EventBase):
    """The model's thinking, coalesced as text is; clients show it apart from the answer
    (collapsed), or not at all."""

    kind: Literal["thought"] = "thought"
    text: str


class ToolStarted(EventBase):
    kind: Literal["tool_started"] = "tool_started"
    call_id: str
    name: str
    summary: str = Field(description="one line, e.g. `read_file src/a.py`")


class ToolFinished(EventBase):
    kind: Literal["tool_finished"] = "tool_finished"
    call_id: str
    name: str
    summary: str
    ok: bool
    error: str | None = Field(description="an error code, or null")
    line: str = Field(description="the result's first line, at most 200 characters")
    more_lines: int = Field(description="how many lines follow `line`")
    exit_code: int | None = Field(description="a command's exit code, else null")
    notes: list[str] = Field(description="the result's `[note: …]` lines, whole")


class ApprovalAsked(EventBase):
    kind: Literal["approval_asked"] = "approval_asked"
    call_id: str
    tool: str
    summary: str
    detail: str = Field(description="the command, or the diff")
    rule: str = Field(description='what "Always allow" would add')


class ApprovalAnswered(EventBase):
    kind: Literal["approval_answered"] = "approval_answered"
    call_id: str
    answer: ApprovalAnswer
    rule: str | None = Field(description="the session rule added, if any")


class AnswerOption(WireModel):
    answer: str = Field(description="what `agentls.answer` takes")
    title: str


class QuestionAsked(EventBase):
    """A question now waits for `agentls.answer`."""

    kind: Literal["question"] = "question"
    id: str = Field(
        description="the callId for an approval or a proposed plan, `review-N` for an edit"
    )
    question: Literal["approval", "review", "plan"]
    summary: str
    detail: str = Field(description="the command, or the unified diff")
    path: str | None = Field(description="the file, for a review")
    answers: list[AnswerOption] = Field(description="in the order to offer them")


class QuestionClosed(EventBase):
    kind: Literal["question_closed"] = "question_closed"
    id: str
    answer: str = Field(description="the answer given, `timeout` or `cancelled`")


class EditProposed(EventBase):
    kind: Literal["edit_proposed"] = "edit_proposed"
    path: str
    summary: str = Field(description="e.g. `edit a.py (+3 −1 lines)`")
    review: bool = Field(description="true when the editor's own preview reviews it")


class EditApplied(EventBase):
    kind: Literal["edit_applied"] = "edit_applied"
    path: str
    summary: str
    changed: bool = Field(description="true when what landed differs from the proposal")


class EditRejected(EventBase):
    kind: Literal["edit_rejected"] = "edit_rejected"
    path: str
    reason: str


class WaitingForSave(EventBase):
    """A plain client's open buffers hold an accepted edit (or an undo); the run waits
    for the person's save (at most `seconds`, then agentls writes them itself)."""

    kind: Literal["waiting_for_save"] = "waiting_for_save"
    paths: list[str] = Field(description="the files to save, relative to the workspace")
    seconds: float = Field(description="how long the run waits before writing them itself")


class PlanStep(WireModel):
    step: str
    status: Literal["pending", "in_progress", "completed"]


class PlanEvent(EventBase):
    """The model's checklist (`update_plan`), whole: it replaces the one shown before."""

    kind: Literal["plan"] = "plan"
    plan: list[PlanStep]
    explanation: str = Field(description="why the plan is so, or what changed; may be empty")


class PlanProposed(EventBase):
    """In plan mode, a plan is put to the person (`propose_plan`); the question follows
    (a prompt, or a `question` of kind `plan`)."""

    kind: Literal["plan_proposed"] = "plan_proposed"
    call_id: str
    plan: str = Field(description="markdown")


class ModeChanged(EventBase):
    """The session's mode changed during the run: the person approved a plan."""

    kind: Literal["mode_changed"] = "mode_changed"
    mode: Mode


class Steered(EventBase):
    """A message sent with `agentls.steer` reached the model (at this turn's boundary)."""

    kind: Literal["steered"] = "steered"
    text: str


class UsageEvent(EventBase):
    kind: Literal["usage"] = "usage"
    usage: Usage = Field(description="the run's totals so far")


class ProcessEvent(EventBase):
    """A background process started, exited by itself or was stopped. `runId` and `turn`
    are those of the call that started it, also for its end (which may come after that
    run, or between runs)."""

    kind: Literal["process"] = "process"
    id: str = Field(description="`p1`, `p2`, … in the order the session started them")
    action: Literal["started", "exited", "stopped"]
    command: str = Field(description="the command line, as the gate and any person saw it")
    state: Literal["running", "exited", "stopped"]
    exit_code: int | None = Field(description="once it has ended; negative: killed by a signal")
    by: Literal["model", "person", "session end", "undo", "rewind"] | None = Field(
        description="who stopped it, for `stopped`"
    )
    sandbox: str = Field(description='"session" (shared), "own" (its own) or "none"')


class HookNoticeEvent(EventBase):
    """A settings hook has something for the person: it failed or was cut off (``error``:
    the run goes on; a PreToolUse hook's call then asks), or it asked to show a message."""

    kind: Literal["hook"] = "hook"
    event: str = Field(description='the hook event, e.g. "PreToolUse"')
    command: str = Field(description="the hook's command, as the settings wrote it")
    text: str
    error: bool


class RunFinished(RunOutcome):
    kind: Literal["run_finished"] = "run_finished"
    turn: int


AgentEvent = Annotated[
    Union[  # noqa: UP007
        RunStarted,
        TextEvent,
        ThoughtEvent,
        ToolStarted,
        ToolFinished,
        ApprovalAsked,
        ApprovalAnswered,
        QuestionAsked,
        QuestionClosed,
        EditProposed,
        EditApplied,
        EditRejected,
        WaitingForSave,
        PlanEvent,
        PlanProposed,
        ModeChanged,
        Steered,
        UsageEvent,
        ProcessEvent,
        HookNoticeEvent,
        RunFinished,
    ],
    Field(discriminator="kind"),
]
AGENT_EVENT: TypeAdapter[AgentEvent] = TypeAdapter(AgentEvent)

# The kinds the workspace and the question board report with a payload of their own.
PAYLOAD_EVENTS: dict[str, type[EventBase]] = {
    "question": QuestionAsked,
    "question_closed": QuestionClosed,
    "edit_proposed": EditProposed,
    "edit_applied": EditApplied,
    "edit_rejected": EditRejected,
    "waiting_for_save": WaitingForSave,
}
