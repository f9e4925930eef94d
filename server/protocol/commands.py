"""Every `agentls.*` command: the one object argument it takes and what it returns.

Commands that may be run without an argument (or with `{}`) say so in
`COMMANDS`; their parameters are then all optional.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, JsonValue, model_validator

from agentls.permissions.modes import Mode
from agentls.protocol.common import Range, RunOutcome
from agentls.protocol.reports import CommandsInfo, DoctorReport, McpServerReport
from agentls.protocol.wire import Omittable, Params, WireModel

MODE_NAMES: list[JsonValue] = [mode.value for mode in Mode]

# --- agentls.ask -------------------------------------------------------------


class AskImage(Params):
    """An image sent with the prompt: a file the server reads, or the bytes themselves.
    Its format is read from its bytes (PNG, JPEG, GIF or WebP), whatever its name or
    `mimeType` say."""

    path: str | None = Field(
        default=None, description="an image file: absolute, or relative to the workspace root"
    )
    data: str | None = Field(default=None, description="the image's bytes, base64")
    mime_type: str | None = Field(
        default=None, description="what the client believes it is (agentls checks the bytes)"
    )
    name: str | None = Field(default=None, description="for messages about it")

    @model_validator(mode="after")
    def _path_or_data(self) -> AskImage:
        if (self.path is None) == (self.data is None):
            raise ValueError('give an image either a "path" or its "data" (base64), not both')
        return self


class AskParams(Params):
    prompt: str = Field(min_length=1)
    session_id: str | None = Field(default=None, description="continue this session")
    uri: str | None = Field(default=None, description="the document asked about")
    range: Range | None = Field(default=None, description="lines of `uri` to attach")
    wait: bool = Field(default=False, description="answer only when the run has ended")
    images: list[AskImage] = Field(
        default_factory=list, description="images for the model, checked against it first"
    )


class AskStarted(WireModel):
    session_id: str
    run_id: str
    status: Literal["started"] = "started"


class AskFinished(RunOutcome):
    """The answer to an ask with `"wait": true`."""


# --- agentls.cancel, agentls.showTranscript, agentls.sessions -----------------


class CancelParams(Params):
    session_id: str | None = Field(default=None, description="without it: every run")


class CancelResult(WireModel):
    session_id: str | None
    cancelled: bool
    session_ids: Omittable[list[str]] = Field(
        default=None, description="the sessions whose runs were aborted (without a sessionId)"
    )


class TranscriptParams(Params):
    session_id: str | None = Field(
        default=None, description="without it: the session asked last, else the newest"
    )


class TranscriptShown(WireModel):
    session_id: str
    uri: str
    shown: bool = Field(description="false when the editor cannot open documents")


class SessionInfo(WireModel):
    session_id: str
    created_at: str
    workspace: str
    first_prompt: str
    outcome: str | None
    runs: int
    cost_usd: float | None
    running: bool
    forked_from: Omittable[str] = Field(
        default=None, description="a fork's: the session it was forked from"
    )
    forked_at_ask: Omittable[int] = Field(
        default=None, description="a fork's: its history ends before that session's ask N"
    )


# --- agentls.steer ---------------------------------------------------------------


class SteerParams(Params):
    session_id: str = Field(min_length=1)
    prompt: str = Field(min_length=1, description="the person's words for the running run")


class SteerResult(WireModel):
    session_id: str
    run_id: str | None = Field(description="the run it waits for; null when none is going")
    queued: bool = Field(description="false: no run is going (send it with agentls.ask)")


# --- agentls.setMode -----------------------------------------------------------


class SetModeParams(Params):
    # A string, so an unknown mode is answered with the list of modes.
    mode: str = Field(json_schema_extra={"enum": MODE_NAMES})
    session_id: str | None = Field(
        default=None, description="without it: the default for new sessions"
    )


class ModeSet(WireModel):
    mode: Mode
    session_id: str | None


# --- agentls.answer, agentls.showDiff -------------------------------------------


class AnswerParams(Params):
    id: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class Answered(WireModel):
    id: str
    answer: str


class QuestionParams(Params):
    id: str = Field(min_length=1)


class DiffShown(WireModel):
    id: str
    uri: str
    shown: bool


# --- agentls.undo ----------------------------------------------------------------


class UndoParams(Params):
    session_id: str
    turn: int | None = Field(default=None, ge=1, description="without it: the last ask")


class UndoResult(WireModel):
    turn: int = Field(description="the (last) checkpointed turn undone")
    turns: list[int] = Field(description="every turn undone, oldest first")
    ask: bool = Field(description="a whole ask was undone")
    run_id: str | None = Field(description="the ask's run, when a whole ask was undone")
    restored: list[str]
    removed: list[str]
    conflicts: list[str] = Field(description="files changed since: then nothing was undone")
    refused: list[str] = Field(
        default_factory=list,
        description="files not put back, the rest being undone: a link leads them out of "
        "the workspace",
    )
    done: bool = Field(description="the undo was carried out (refused files aside)")


# --- agentls.asks, agentls.rewind, agentls.fork ------------------------------------


class AsksParams(Params):
    session_id: str


class AskEntry(WireModel):
    ask: int = Field(description="its number, from 1, as `agentls show` prints it")
    run_id: str
    prompt: str = Field(description="the person's words (the prompt's first paragraph)")
    outcome: str = Field(description="how its run ended, or `unfinished`")
    rewound: bool = Field(description="a rewind took it back: the model no longer sees it")


class RewindParams(Params):
    session_id: str
    ask: int | None = Field(default=None, ge=1, description="rewind to before this ask")
    run_id: str | None = Field(default=None, description="or the ask by its run's id")
    conversation: bool = Field(default=True, description="take the asks back from the history")
    files: bool = Field(default=True, description="put back the files they changed")
    dry_run: bool = Field(default=False, description="say what it would do; change nothing")

    @model_validator(mode="after")
    def _one_ask(self) -> RewindParams:
        if (self.ask is None) == (self.run_id is None):
            raise ValueError("name the ask by its number (`ask`) or its run (`runId`), not both")
        if not self.conversation and not self.files:
            raise ValueError("`conversation` and `files` are both false: nothing to rewind")
        return self


class RewindResult(WireModel):
    ask: int = Field(description="rewound to before this ask")
    asks: list[int] = Field(description="the asks taken back from the history")
    runs: list[str] = Field(description="their runs")
    prompts: list[str] = Field(description="their words, one short line each")
    conversation: bool
    files: bool
    turns: list[int] = Field(description="the checkpointed turns undone")
    restored: list[str]
    removed: list[str]
    kept: list[str] = Field(description="changed since: kept as they are, not put back")
    refused: list[str] = Field(description="not put back: a link leads them out of the workspace")
    dry_run: bool = Field(description="nothing was changed: this is what a rewind would do")
    summary: str = Field(description="what was done (or would be), in a sentence")


class ForkParams(Params):
    session_id: str
    ask: int | None = Field(
        default=None, ge=1, description="the history ends before this ask; without it: whole"
    )


class Forked(WireModel):
    session_id: str = Field(description="the new session")
    forked_from: str
    ask: int | None


# --- agentls.mcp, agentls.doctor ----------------------------------------------------


class McpParams(Params):
    uri: str | None = Field(default=None, description="only the folder of this document")
    restart: bool = Field(default=False, description="give servers that failed a fresh start")
    start: bool = Field(default=True, description="start servers that are not running")


class DoctorParams(Params):
    uri: str | None = Field(default=None, description="the folder of this document")


# --- agentls.memory -------------------------------------------------------------------


class MemoryParams(Params):
    action: Literal["list", "add", "forget"] = "list"
    uri: str | None = Field(default=None, description="the folder of this document")
    text: str | None = Field(default=None, description="for add: what to remember")
    scope: Literal["user", "project"] = "project"
    expires_days: float | None = Field(default=None, gt=0, description="for add")
    id: str | None = Field(default=None, description="for forget: the memory's id")


class MemoryEntry(WireModel):
    id: str
    content: str
    scope: str = Field(description='"user" or "project"')
    source: str = Field(description="explicit_user_rule, verified_observation, agent_summary")
    confidence: str = Field(description="low, medium, high")
    created_at: str
    last_verified_at: str | None = None
    expires_at: str | None = None
    stale: bool = Field(default=False, description="not verified for 30 days")
    line: str = Field(description="the memory in one line, as the CLI lists it")


class MemoryResult(WireModel):
    memories: list[MemoryEntry] = Field(description="what applies now, after the action")
    changed: str | None = Field(default=None, description="the id added or forgotten")
    warnings: list[str] = Field(default_factory=list, description="stores that did not load")


# --- agentls.commands -----------------------------------------------------------------


class CommandsParams(Params):
    uri: str | None = Field(default=None, description="the folder of this document")


# --- agentls.processes ----------------------------------------------------------


class ProcessesParams(Params):
    session_id: str | None = Field(
        default=None, description="this session's processes; without it: every open session's"
    )
    stop: str | None = Field(
        default=None,
        description="a process to stop first (`p1`); without a sessionId, the one open "
        "session that runs it",
    )


class ProcessEntry(WireModel):
    session_id: str
    id: str = Field(description="`p1`, `p2`, …")
    command: str
    state: Literal["running", "exited", "stopped"]
    exit_code: int | None
    started_at: str = Field(description="ISO 8601")
    run_id: str | None = Field(description="the run that started it")
    sandbox: str = Field(description='"session" (shared), "own" (its own) or "none"')


class ProcessesResult(WireModel):
    processes: list[ProcessEntry] = Field(description="running first, then ended, oldest first")
    stopped: str | None = Field(default=None, description="the id stopped, if one was")


# --- the table -----------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    params: type[Params] | None  # None: takes no argument
    result: Any  # a model, a list of one, or a union
    argument_optional: bool = False  # may be run with no argument, or `{}`


COMMANDS: dict[str, Command] = {
    "agentls.ask": Command(AskParams, AskStarted | AskFinished),
    "agentls.cancel": Command(CancelParams, CancelResult, argument_optional=True),
    "agentls.steer": Command(SteerParams, SteerResult),
    "agentls.sessions": Command(None, list[SessionInfo]),
    "agentls.showTranscript": Command(TranscriptParams, TranscriptShown, argument_optional=True),
    "agentls.setMode": Command(SetModeParams, ModeSet),
    "agentls.answer": Command(AnswerParams, Answered),
    "agentls.showDiff": Command(QuestionParams, DiffShown),
    "agentls.undo": Command(UndoParams, UndoResult),
    "agentls.asks": Command(AsksParams, list[AskEntry]),
    "agentls.rewind": Command(RewindParams, RewindResult),
    "agentls.fork": Command(ForkParams, Forked),
    "agentls.mcp": Command(McpParams, list[McpServerReport], argument_optional=True),
    "agentls.doctor": Command(DoctorParams, DoctorReport, argument_optional=True),
    "agentls.memory": Command(MemoryParams, MemoryResult, argument_optional=True),
    "agentls.commands": Command(CommandsParams, CommandsInfo, argument_optional=True),
    "agentls.processes": Command(ProcessesParams, ProcessesResult, argument_optional=True),
}
