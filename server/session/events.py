"""The session log's events: one pydantic-typed class per kind (schema version 2).

Each line of a session's JSONL log is one event, the envelope first:

    {"v": 2, "seq": N, "ts": UNIX_SECONDS, "kind": KIND, "run": RUN_ID|null,
     "turn": N|null, ...payload}

Each kind is a dataclass that pydantic validates, serializes (in Rust) and
describes: `SESSION_EVENTS` is the discriminated union, `session_event_schema()`
its JSON Schema. Writers build the event of their kind (with `run` and `turn`
when it belongs to a run) and hand it to `SessionLog.append`, which stamps `v`,
`seq` and `ts`. A writer's event is not validated: its fields are typed and the
type checker holds every writer to them; the tests validate what the writers
write against the union. ``seq`` starts at 1 and runs on without gaps in a
file, across resumes. The envelope keys come first, in this order: listing
sessions reads a line's kind before parsing its (possibly large) payload.
Payload keys are camelCase; `input`, `meta` and `settings` hold what a tool or
a person wrote, as written. Readers parse each line into `SessionEvent`
(`reader.read_events`); version 1 lines are upgraded first (`upgrade.py`), and
a ``v`` above SCHEMA_VERSION is refused rather than guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Final, Literal, TypeVar, Union, get_args

import orjson
from pydantic import BeforeValidator, Field, TypeAdapter
from pydantic_core import SchemaSerializer

from agentls.contracts.decisions import ApprovalAnswer, Verdict
from agentls.contracts.model_io import StopReason
from agentls.contracts.tooling import ErrorCode
from agentls.contracts.usage import Usage
from agentls.session.encoding import LINE_OPTIONS, Encoder, build_encoder, refuse
from agentls.session.records import (
    WIRE,
    ChangedFile,
    ForkOrigin,
    InstructionFileRecord,
    PlanStepRecord,
    ProblemRecord,
    RunResultRecord,
    WireMessage,
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
REWOUND: Final = "rewound"
PROBLEMS: Final = "problems"
RULES_SAVED: Final = "rules_saved"
SESSION_RULES: Final = "session_rules"
NOTICE: Final = "notice"
GUIDANCE: Final = "guidance"
PLAN_UPDATED: Final = "plan_updated"
PLAN_REVIEWED: Final = "plan_reviewed"
STEERED: Final = "steered"
PROCESS: Final = "process"
HOOK_RUN: Final = "hook_run"
PROMPT_COMMAND: Final = "prompt_command"
RUN_FINISHED: Final = "run_finished"
RUN_CLOSED: Final = "run_closed"


def _known_stop(value: object) -> object:
    # A reason this agentls does not know still reads: the message is what matters.
    return value if value in _STOP_REASONS else "other"


_STOP_REASONS = frozenset(get_args(StopReason))


# Keyword-only (the envelope has defaults, most payloads none) and slotted: a writer
# builds several a turn, and a plain dataclass costs a third of a validated model.
@dataclass(kw_only=True, slots=True)
class Event:
    """The envelope. `v`, `seq` and `ts` are the log's to set."""

    __pydantic_config__ = WIRE

    v: int = SCHEMA_VERSION
    seq: int = 0
    ts: float = 0.0
    kind: str = ""
    run: str | None = None
    turn: int | None = None


@dataclass(kw_only=True, slots=True)
class SessionStarted(Event):
    kind: Literal["session_started"] = "session_started"
    session_id: str
    workspace: Annotated[str, Field(description="absolute path")]
    model: str
    created_at: Annotated[str, Field(description="ISO 8601")]
    forked_from: Annotated[
        ForkOrigin | None, Field(description="the session this one was forked from")
    ] = None


@dataclass(kw_only=True, slots=True)
class RunStarted(Event):
    kind: Literal["run_started"] = "run_started"
    prompt: str
    settings: Annotated[
        dict[str, Any], Field(description="the run's settings in their wire form")
    ] = field(default_factory=dict)
    mode: Annotated[str | None, Field(description="the mode the run starts in")] = None
    reviewed: Annotated[bool, Field(description="edits are reviewed by the workspace")] = False


@dataclass(kw_only=True, slots=True)
class UserMessage(Event):
    kind: Literal["user_message"] = "user_message"
    message: WireMessage


@dataclass(kw_only=True, slots=True)
class ModelRequest(Event):
    kind: Literal["model_request"] = "model_request"
    model: str
    messages: Annotated[int, Field(description="how many, as projected")]
    tools: Annotated[list[str], Field(description="the names offered")]
    estimated_tokens: Annotated[int | None, Field(description="the whole prompt")] = None
    reasoning: Annotated[
        str | None, Field(description="the reasoning level the model works at; null: none")
    ] = None


@dataclass(kw_only=True, slots=True)
class ModelOutput(Event):
    kind: Literal["model_output"] = "model_output"
    message: WireMessage
    stop_reason: Annotated[StopReason, BeforeValidator(_known_stop)] = "end_turn"


@dataclass(kw_only=True, slots=True)
class UsageEvent(Event):
    kind: Literal["usage"] = "usage"
    usage: Annotated[Usage, Field(description="tokens of this call")]
    cost_usd: Annotated[float | None, Field(description="this call; null when unknown")] = None
    total_cost_usd: Annotated[float | None, Field(description="the run so far")] = None
    purpose: Annotated[
        Literal["compaction"] | None, Field(description="null for the agent's own calls")
    ] = None


@dataclass(kw_only=True, slots=True)
class ContextProjected(Event):
    """The projection's shape changed: the model now sees [summary head] +
    history[fromMessage:], tool results longer than bulkyChars in
    history[elidedFrom:elidedBefore] elided to a stub."""

    kind: Literal["context_projected"] = "context_projected"
    from_message: int
    summary_seq: Annotated[int | None, Field(description="the context_summary used")] = None
    elided_from: Annotated[int | None, Field(description="fromMessage when null")] = None
    elided_before: int
    bulky_chars: int
    elided: int
    estimated_tokens: int
    compact_at: int
    window: int


@dataclass(kw_only=True, slots=True)
class ContextSummary(Event):
    """Written by a model, never a fact: kept beside the history, never in it."""

    kind: Literal["context_summary"] = "context_summary"
    summary: Literal[True] = True
    text: str
    pinned: Annotated[str, Field(description="facts taken from the history")] = ""
    from_message: int
    up_to_message: Annotated[int, Field(description="it stands for history[:upToMessage]")]
    reason: Annotated[str, Field(description='"threshold", "prompt_too_long" or "requested"')]
    model: str


@dataclass(kw_only=True, slots=True)
class ToolIntent(Event):
    kind: Literal["tool_intent"] = "tool_intent"
    call_id: str
    name: str
    input: dict[str, Any]
    summary: Annotated[str | None, Field(description="one line for a person")] = None


@dataclass(kw_only=True, slots=True)
class Decision(Event):
    kind: Literal["decision"] = "decision"
    call_id: str
    verdict: Verdict
    source: str
    answer: ApprovalAnswer | None = None
    # What runs in place of the command's text, when that differs: the gate's own
    # spelling of the line it judged (rules, not a person, approved it).
    runs: str | None = None


@dataclass(kw_only=True, slots=True)
class ObservationEvent(Event):
    kind: Literal["observation"] = "observation"
    call_id: str
    name: str
    ok: bool
    content: str
    error: ErrorCode | None = None
    retryable: bool = False
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True, slots=True)
class ToolResults(Event):
    """The user message of tool results appended to the history."""

    kind: Literal["tool_results"] = "tool_results"
    message: WireMessage


@dataclass(kw_only=True, slots=True)
class ModeChanged(Event):
    kind: Literal["mode_changed"] = "mode_changed"
    mode: str


@dataclass(kw_only=True, slots=True)
class CheckpointStarted(Event):
    """The snapshot before a turn that may change files."""

    kind: Literal["checkpoint_started"] = "checkpoint_started"
    number: int
    before: str


@dataclass(kw_only=True, slots=True)
class Checkpoint(Event):
    kind: Literal["checkpoint"] = "checkpoint"
    number: int
    before: str
    after: str
    changed: list[ChangedFile]
    interrupted: Annotated[bool, Field(description="closed after a crash")] = False


@dataclass(kw_only=True, slots=True)
class Undo(Event):
    """`turn` is the last checkpoint number undone."""

    kind: Literal["undo"] = "undo"
    turns: list[int]
    ask: Annotated[bool, Field(description="a whole ask: its runId")] = False
    run_id: str | None = None
    restored: list[str]
    removed: list[str]
    conflicts: list[str]
    refused: Annotated[
        list[str], Field(description="not put back: a link leads them out of the workspace")
    ] = field(default_factory=list)
    done: bool


@dataclass(kw_only=True, slots=True)
class Rewound(Event):
    """A rewind to before ask `ask` (asks are numbered from 1 in the order of their
    run_started events, taken back or not). With `conversation`, the asks in `asks`
    leave the history the model sees; with `files`, the files their checkpointed turns
    changed went back, those changed since kept as they are."""

    kind: Literal["rewound"] = "rewound"
    ask: Annotated[int, Field(description="the ask rewound to: it and every later one")]
    asks: Annotated[list[int], Field(description="the asks taken back from the history")]
    runs: Annotated[list[str], Field(description="their runs, in the same order")]
    conversation: bool
    files: bool
    turns: Annotated[list[int], Field(description="the checkpointed turns undone")] = field(
        default_factory=list
    )
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: Annotated[list[str], Field(description="changed since those turns: kept as they are")] = (
        field(default_factory=list)
    )
    refused: Annotated[
        list[str], Field(description="not put back: a link leads them out of the workspace")
    ] = field(default_factory=list)


@dataclass(kw_only=True, slots=True)
class Problems(Event):
    """Problems a turn's edits introduced (language servers)."""

    kind: Literal["problems"] = "problems"
    problems: list[ProblemRecord]
    unsettled: Annotated[list[str], Field(description="files still being checked")]
    note: Annotated[str, Field(description="the text added to the tool results that follow")]


@dataclass(kw_only=True, slots=True)
class RulesSaved(Event):
    kind: Literal["rules_saved"] = "rules_saved"
    rules: Annotated[list[str], Field(description='allow rules "always allow" saved')]
    path: Annotated[str, Field(description="the workspace settings file")]


@dataclass(kw_only=True, slots=True)
class SessionRules(Event):
    """Rules an "always" answer added for the rest of the session (in no settings file):
    a session opened again from its log keeps them."""

    kind: Literal["session_rules"] = "session_rules"
    allow: Annotated[list[str], Field(description='allow rules ("always allow")')] = field(
        default_factory=list
    )
    deny: Annotated[list[str], Field(description='deny rules ("always reject")')] = field(
        default_factory=list
    )


@dataclass(kw_only=True, slots=True)
class Notice(Event):
    """Something the person is told once in a session, whichever process runs it."""

    kind: Literal["notice"] = "notice"
    topic: Annotated[str, Field(description='what it is about, e.g. "no_sandbox"')]
    text: str


@dataclass(kw_only=True, slots=True)
class Guidance(Event):
    """What a run was told besides its prompt: the instruction files and memories."""

    kind: Literal["guidance"] = "guidance"
    files: list[InstructionFileRecord]
    left_out: Annotated[list[str], Field(description="files the size limit left out")]
    memories: Annotated[list[str], Field(description="ids of the memories shown")]
    warnings: Annotated[list[str], Field(description="files or stores that were not used")]


@dataclass(kw_only=True, slots=True)
class PlanUpdated(Event):
    """The model's checklist (an `update_plan` call), whole: it replaces the one before."""

    kind: Literal["plan_updated"] = "plan_updated"
    call_id: str
    plan: list[PlanStepRecord]
    explanation: str = ""


@dataclass(kw_only=True, slots=True)
class PlanReviewed(Event):
    """The person's answer to a proposed plan (`propose_plan`); a switch is followed by
    its `mode_changed`."""

    kind: Literal["plan_reviewed"] = "plan_reviewed"
    call_id: str
    choice: Annotated[
        Literal["default", "accept-edits", "keep-planning"],
        Field(description="the mode switched to, or keep-planning"),
    ]
    note: Annotated[str, Field(description="what the person told the model")] = ""
    person: Annotated[bool, Field(description="false: no one answered (no terminal, --yes)")]
    plan: Annotated[str, Field(description="the plan, in markdown")]


@dataclass(kw_only=True, slots=True)
class Steered(Event):
    """A message the person sent while the run worked, given to the model at this turn's
    boundary (after the turn's tool results, or as the next prompt when the model had
    answered)."""

    kind: Literal["steered"] = "steered"
    text: str


@dataclass(kw_only=True, slots=True)
class ProcessEvent(Event):
    """A background process started (in the run and turn of the call that started it),
    exited by itself, or was stopped (and by whom)."""

    kind: Literal["process"] = "process"
    id: Annotated[str, Field(description="p1, p2, ... in the order the session started them")]
    action: Literal["started", "exited", "stopped"]
    command: Annotated[str, Field(description="the line as the gate and any person saw it")]
    call_id: Annotated[str, Field(description="the run_command call that started it")] = ""
    exit_code: Annotated[
        int | None, Field(description="once it has ended; negative: killed by that signal")
    ] = None
    by: Annotated[
        Literal["model", "person", "session end", "undo", "rewind"] | None,
        Field(description="who stopped it"),
    ] = None
    sandbox: Annotated[str, Field(description='"session" (shared), "own" (its own) or "none"')] = (
        "session"
    )


@dataclass(kw_only=True, slots=True)
class HookRun(Event):
    """One hook command of the settings run at one of its events, and what came of it.
    Replay reads these instead of running hooks again."""

    kind: Literal["hook_run"] = "hook_run"
    hook_event: Annotated[str, Field(description='e.g. "PreToolUse"')]
    command: Annotated[str, Field(description="as the settings wrote it, masked")]
    managed: Annotated[bool, Field(description="from the managed settings")] = False
    call_id: Annotated[str | None, Field(description="the tool call, for tool events")] = None
    timeout_seconds: float = 60.0
    exit_code: Annotated[int | None, Field(description="null: killed or never started")] = None
    timed_out: bool = False
    failure: Annotated[str | None, Field(description="why it did not run or finish")] = None
    stdout: Annotated[str, Field(description="bounded, masked")] = ""
    stderr: Annotated[str, Field(description="bounded, masked")] = ""
    duration_ms: int = 0
    outcome: Annotated[str, Field(description='what it decided: "deny", "context", ...')] = ""


@dataclass(kw_only=True, slots=True)
class PromptCommandUsed(Event):
    """The command file a run's prompt named (`/name args`), as it was read: the run's
    user message is its text with the arguments in place."""

    kind: Literal["prompt_command"] = "prompt_command"
    name: Annotated[str, Field(description="without the slash")]
    path: Annotated[str, Field(description="workspace-relative, or the person's own file")]
    sha256: Annotated[str, Field(description="of the file's bytes as read")]
    scope: Annotated[str, Field(description='"workspace" or "user"')]
    arguments: str
    trusted: Annotated[bool, Field(description="the person's own, or approved (agentls trust)")]
    rules: Annotated[
        list[str], Field(description="allow rules its allowed-tools added to the session")
    ] = field(default_factory=list)
    notes: Annotated[list[str], Field(description="what of the file was not used")] = field(
        default_factory=list
    )


@dataclass(kw_only=True, slots=True)
class RunFinished(Event):
    kind: Literal["run_finished"] = "run_finished"
    result: RunResultRecord


@dataclass(kw_only=True, slots=True)
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
        Rewound,
        Problems,
        RulesSaved,
        SessionRules,
        Notice,
        Guidance,
        PlanUpdated,
        PlanReviewed,
        Steered,
        ProcessEvent,
        HookRun,
        PromptCommandUsed,
        RunFinished,
        RunClosed,
    ],
    Field(discriminator="kind"),
]

EventT = TypeVar("EventT", bound=Event)
SESSION_EVENTS: TypeAdapter[SessionEvent] = TypeAdapter(SessionEvent)
EVENT_TYPES: Final[dict[str, type[Event]]] = {
    str(next(f.default for f in fields(cls) if f.name == "kind")): cls
    for cls in get_args(get_args(SessionEvent)[0])
}
# Each kind's own serializer (pydantic's, in Rust): no union to dispatch on when writing.
SERIALIZERS: Final[dict[type[Event], SchemaSerializer]] = {
    cls: TypeAdapter(cls).serializer for cls in EVENT_TYPES.values()
}


# The same JSON, written from a dict by orjson for the kinds whose fields allow it
# (every kind a turn writes): a third of pydantic's cost on a turn's events.
ENCODERS: Final[dict[type[Event], Encoder]] = {
    cls: encoder for cls in EVENT_TYPES.values() if (encoder := build_encoder(cls)) is not None
}


def to_json_line(event: Event) -> bytes:
    """``event`` as one line of the log, newline included; raises what pydantic
    raises for what it cannot write (a lone surrogate, circular data)."""
    encoder = ENCODERS.get(type(event))
    if encoder is not None:
        try:
            return orjson.dumps(encoder(event), default=refuse, option=LINE_OPTIONS)
        except orjson.JSONEncodeError:
            pass  # a value only pydantic writes as the schema says
    return SERIALIZERS[type(event)].to_json(event, fallback=str) + b"\n"


def to_json(event: Event) -> bytes:
    """``event`` as one line's JSON (without the newline), as the log writes it."""
    return to_json_line(event)[:-1]


def to_wire(event: Event) -> dict[str, Any]:
    """``event`` as the JSON object the log writes."""
    wire: dict[str, Any] = SERIALIZERS[type(event)].to_python(event, mode="json", fallback=str)
    return wire


def session_event_schema() -> dict[str, Any]:
    """The JSON Schema of a log line as written."""
    return SESSION_EVENTS.json_schema(mode="serialization")
