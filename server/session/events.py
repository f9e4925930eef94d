"""The session log's events: one pydantic model per kind (schema version 2).

Each line of a session's JSONL log is one event, the envelope first:

    {"v": 2, "seq": N, "ts": UNIX_SECONDS, "kind": KIND, "run": RUN_ID|null,
     "turn": N|null, ...payload}

Writers build the model of their kind (with `run` and `turn` when the event
belongs to a run) and hand it to `SessionLog.append`, which stamps `v`, `seq`
and `ts`. ``seq`` starts at 1 and runs on without gaps in a file, across
resumes. The envelope keys come first, in this order: listing sessions reads a
line's kind before parsing its (possibly large) payload. Payload keys are
camelCase; `input`, `meta` and `settings` hold what a tool or a person wrote, as
written. Readers parse each line into `SessionEvent` (`reader.read_events`);
version 1 lines are upgraded first (`upgrade.py`), and a ``v`` above
SCHEMA_VERSION is refused rather than guessed at.

`SESSION_EVENTS` validates and describes the union (`session_event_schema()`).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, TypeVar, Union, get_args

from pydantic import BaseModel, BeforeValidator, Field, TypeAdapter

from agentls.contracts.decisions import ApprovalAnswer, Verdict
from agentls.contracts.model_io import StopReason
from agentls.contracts.tooling import ErrorCode
from agentls.session.records import (
    WIRE,
    ChangedFile,
    ProblemRecord,
    RunResultRecord,
    WireMessage,
    WireUsage,
)

SCHEMA_VERSION: Final = 2

SESSION_STARTED: Final = "session_started"
RUN_STARTED: Final = "run_started"
USER_MESSAGE: Final = "user_message"
MODEL_REQUEST: Final = "model_request"
MODEL_OUTPUT: Final = "model_output"
USAGE: Final = "usage"
CONTEXT_PROJECTED: Final = "context_projected"
CONTEXT_SUMMARY: Final = "context_summary"
TOOL_INTENT: Final = "tool_intent"
DECISION: Final = "decision"
OBSERVATION: Final = "observation"
TOOL_RESULTS: Final = "tool_results"
MODE_CHANGED: Final = "mode_changed"
CHECKPOINT_STARTED: Final = "checkpoint_started"
CHECKPOINT: Final = "checkpoint"
UNDO: Final = "undo"
PROBLEMS: Final = "problems"
RULES_SAVED: Final = "rules_saved"
RUN_FINISHED: Final = "run_finished"
RUN_CLOSED: Final = "run_closed"


def _known_stop(value: object) -> object:
    # A reason this agentls does not know still reads: the message is what matters.
    return value if value in _STOP_REASONS else "other"


_STOP_REASONS = frozenset(get_args(StopReason))


class Event(BaseModel):
    """The envelope. `v`, `seq` and `ts` are the log's to set."""

    model_config = WIRE

    v: int = SCHEMA_VERSION
    seq: int = 0
    ts: float = 0.0
    kind: str
    run: str | None = None
    turn: int | None = None


class SessionStarted(Event):
    kind: Literal["session_started"] = "session_started"
    session_id: str
    workspace: str = Field(description="absolute path")
    model: str
    created_at: str = Field(description="ISO 8601")


class RunStarted(Event):
    kind: Literal["run_started"] = "run_started"
    prompt: str
    settings: dict[str, Any] = Field(
        default_factory=dict, description="the run's settings in their wire form"
    )
    mode: str | None = Field(default=None, description="the mode the run starts in")
    reviewed: bool = Field(default=False, description="edits are reviewed by the workspace")


class UserMessage(Event):
    kind: Literal["user_message"] = "user_message"
    message: WireMessage


class ModelRequest(Event):
    kind: Literal["model_request"] = "model_request"
    model: str
    messages: int = Field(description="how many, as projected")
    tools: list[str] = Field(description="the names offered")
    estimated_tokens: int | None = Field(default=None, description="the whole prompt")


class ModelOutput(Event):
    kind: Literal["model_output"] = "model_output"
    message: WireMessage
    stop_reason: Annotated[StopReason, BeforeValidator(_known_stop)] = "end_turn"


class UsageEvent(Event):
    kind: Literal["usage"] = "usage"
    usage: WireUsage
    cost_usd: float | None = Field(default=None, description="this call; null when unknown")
    total_cost_usd: float | None = Field(default=None, description="the run so far")
    purpose: Literal["compaction"] | None = Field(
        default=None, description="null for the agent's own calls"
    )


class ContextProjected(Event):
    """The projection's shape changed: the model now sees [summary head] +
    history[fromMessage:], tool results longer than bulkyChars in
    history[elidedFrom:elidedBefore] elided to a stub."""

    kind: Literal["context_projected"] = "context_projected"
    from_message: int
    summary_seq: int | None = Field(default=None, description="the context_summary used")
    elided_from: int | None = Field(default=None, description="fromMessage when null")
    elided_before: int
    bulky_chars: int
    elided: int
    estimated_tokens: int
    compact_at: int
    window: int


class ContextSummary(Event):
    """Written by a model, never a fact: kept beside the history, never in it."""

    kind: Literal["context_summary"] = "context_summary"
    summary: Literal[True] = True
    text: str
    pinned: str = Field(default="", description="facts taken from the history")
    from_message: int
    up_to_message: int = Field(description="it stands for history[:upToMessage]")
    reason: str = Field(description='"threshold", "prompt_too_long" or "requested"')
    model: str


class ToolIntent(Event):
    kind: Literal["tool_intent"] = "tool_intent"
    call_id: str
    name: str
    input: dict[str, Any]
    summary: str | None = Field(default=None, description="one line for a person")


class Decision(Event):
    kind: Literal["decision"] = "decision"
    call_id: str
    verdict: Verdict
    source: str
    answer: ApprovalAnswer | None = None


class ObservationEvent(Event):
    kind: Literal["observation"] = "observation"
    call_id: str
    name: str
    ok: bool
    content: str
    error: ErrorCode | None = None
    retryable: bool = False
    meta: dict[str, Any] = Field(default_factory=dict)


class ToolResults(Event):
    """The user message of tool results appended to the history."""

    kind: Literal["tool_results"] = "tool_results"
    message: WireMessage


class ModeChanged(Event):
    kind: Literal["mode_changed"] = "mode_changed"
    mode: str


class CheckpointStarted(Event):
    """The snapshot before a turn that may change files."""

    kind: Literal["checkpoint_started"] = "checkpoint_started"
    number: int
    before: str


class Checkpoint(Event):
    kind: Literal["checkpoint"] = "checkpoint"
    number: int
    before: str
    after: str
    changed: list[ChangedFile]
    interrupted: bool = Field(default=False, description="closed after a crash")


class Undo(Event):
    """`turn` is the last checkpoint number undone."""

    kind: Literal["undo"] = "undo"
    turns: list[int]
    ask: bool = Field(default=False, description="a whole ask: its runId")
    run_id: str | None = None
    restored: list[str]
    removed: list[str]
    conflicts: list[str]
    done: bool


class Problems(Event):
    """Problems a turn's edits introduced (language servers)."""

    kind: Literal["problems"] = "problems"
    problems: list[ProblemRecord]
    unsettled: list[str] = Field(description="files still being checked")
    note: str = Field(description="the text added to the tool results that follow")


class RulesSaved(Event):
    kind: Literal["rules_saved"] = "rules_saved"
    rules: list[str] = Field(description='allow rules "always allow" saved')
    path: str = Field(description="the workspace settings file")


class RunFinished(Event):
    kind: Literal["run_finished"] = "run_finished"
    result: RunResultRecord


class RunClosed(Event):
    """Written on resume for a run that never finished."""

    kind: Literal["run_closed"] = "run_closed"
    reason: str
    detail: str = ""


SessionEvent = Annotated[
    Union[  # noqa: UP007
        SessionStarted,
        RunStarted,
        UserMessage,
        ModelRequest,
        ModelOutput,
        UsageEvent,
        ContextProjected,
        ContextSummary,
        ToolIntent,
        Decision,
        ObservationEvent,
        ToolResults,
        ModeChanged,
        CheckpointStarted,
        Checkpoint,
        Undo,
        Problems,
        RulesSaved,
        RunFinished,
        RunClosed,
    ],
    Field(discriminator="kind"),
]

EventT = TypeVar("EventT", bound=Event)
SESSION_EVENTS: TypeAdapter[SessionEvent] = TypeAdapter(SessionEvent)
EVENT_TYPES: Final[dict[str, type[Event]]] = {
    cls.model_fields["kind"].default: cls for cls in get_args(get_args(SessionEvent)[0])
}


def session_event_schema() -> dict[str, Any]:
    """The JSON Schema of a log line as written."""
    return SESSION_EVENTS.json_schema(mode="serialization")
