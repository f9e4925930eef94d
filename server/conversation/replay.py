"""`agentls replay`: the regression tool for the runtime.

Each recorded run is built again as a live run is (`run_builder`: the same
policy, price, budgets and output limit) and run through the real loop and
runtime, with the model's recorded output and usage, the person's recorded
answers, the tools' recorded results and the turn hooks' recorded notes
(nothing touches the workspace), and the runtime's fresh
decisions are compared with the recorded ones: permission verdicts and their
reasons, error codes of calls that never ran, and how each run ended. The
first difference is reported.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import Message, TextBlock, message_from_dict
from agentls.contracts.model_io import (
    MessageDone,
    ModelError,
    ModelErrorKind,
    ModelEvent,
    ModelInput,
)
from agentls.contracts.outcomes import TerminalReason
from agentls.contracts.tooling import ErrorCode, ToolError, ToolIntent, ToolOutput
from agentls.contracts.usage import Usage
from agentls.conversation.run_builder import (
    RunConfig,
    RunParts,
    build_run,
    make_context,
    make_policy,
    make_projector,
)
from agentls.conversation.settings import load_settings
from agentls.permissions.modes import Mode
from agentls.runtime.registry import ToolRegistry
from agentls.session.reducer import Reducer
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.local import LocalWorkspace

# Endings the recording cannot reproduce: the run stopped from outside the loop.
_UNREPEATABLE = {TerminalReason.ABORTED, TerminalReason.TIMEOUT, TerminalReason.MODEL_ERROR}


class ReplayError(Exception):
    """The session cannot be replayed (its workspace is gone, its settings unreadable...)."""


@dataclass(frozen=True)
class Divergence:
    run: str
    what: str
    recorded: Any
    replayed: Any


@dataclass
class ReplayReport:
    runs: int = 0
    calls: int = 0
    divergence: Divergence | None = None
    configs: dict[str, RunConfig] = field(default_factory=dict)  # how each run was rebuilt

    @property
    def same(self) -> bool:
        return self.divergence is None

    def describe(self) -> str:
        if self.divergence is None:
            return (
                f"replayed {self.runs} run(s) and {self.calls} tool call(s): "
                "the runtime made the same decisions"
            )
        d = self.divergence
        return (
            f"first divergence in {d.run}: {d.what}\n  recorded: {d.recorded}\n"
            f"  replayed: {d.replayed}"
        )


class _RecordedModel:
    """Yields the run's recorded model output and what each call used, turn by turn."""

    def __init__(
        self, model_id: str, outputs: Sequence[dict[str, Any]], usages: Sequence[Usage]
    ) -> None:
        self._model_id = model_id
        self._outputs = deque(outputs)
        self._usages = deque(usages)

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def model_name(self) -> str:
        return self._model_id.partition(":")[2]

    async def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        if not self._outputs:
            raise ModelError("the recording ends here", kind=ModelErrorKind.REPLAY)
        event = self._outputs.popleft()
        message = message_from_dict(event["message"])
        usage = self._usages.popleft() if self._usages else Usage()
        yield MessageDone(message, event.get("stopReason", "end_turn"), usage)


class _RecordedNotes:
    """The turn hooks of a replay: the notes the live hooks gave the model, per turn."""

    def __init__(self, notes: dict[int, list[str]]) -> None:
        self._notes = notes

    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        return None

    async def after_act(self, run_id: str, turn: int) -> list[str]:
        return self._notes.pop(turn, [])


class _RecordedAnswers:
    def __init__(self, decisions: Sequence[dict[str, Any]]) -> None:
        self._answers = {d["callId"]: d["answer"] for d in decisions if d.get("answer")}
        self.unexpected: list[str] = []

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer = self._answers.get(request.call_id)
        if answer is None:
            self.unexpected.append(request.call_id)
            return ApprovalAnswer.DENY
        return ApprovalAnswer(answer)


class _Capture:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def append(
        self, kind: str, *, run: str | None = None, turn: int | None = None, **payload: Any
    ) -> dict[str, Any]:
        event = {"kind": kind, "run": run, "turn": turn, **payload}
        self.events.append(event)
        return event

    def turn_boundary(self) -> None:
        pass


def _recorded_tools(observations: dict[str, deque[dict[str, Any]]]) -> list[ToolDefinition[Any]]:
    def runner(name: str) -> Any:
        async def run(args: BaseModel, ctx: ToolContext) -> ToolOutput:
            queue = observations.get(name)
            if not queue:
                raise ToolError(ErrorCode.EXECUTION_FAILED, "replay: no recorded result")
            recorded = queue.popleft()
            if recorded.get("ok"):
                return ToolOutput(str(recorded.get("content", "")), dict(recorded.get("meta", {})))
            code = ErrorCode(recorded.get("error") or "execution_failed")
            message = str(recorded.get("content", "")).removeprefix(f"Error ({code.value}): ")
            raise ToolError(code, message, retryable=bool(recorded.get("retryable")))

        return run

    return [dataclasses.replace(tool, run=runner(tool.name)) for tool in BUILTIN_TOOLS]


async def replay_session(events: Sequence[dict[str, Any]]) -> ReplayReport:
    report = ReplayReport()
    reducer = Reducer()
    runs = _split_runs(events)
    session_allow: list[Any] = []
    for event in events:
        if event.get("kind") == "run_started" and event.get("run") in runs:
            history = [m for m in reducer.state.messages]
            divergence = await _replay_run(
                reducer.state.workspace, event, runs[event["run"]], history, session_allow, report
            )
            report.runs += 1
            if divergence is not None:
                report.divergence = divergence
                return report
        reducer.apply(event)
    return report


def _split_runs(events: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        run = event.get("run")
        if run is not None:
            runs[run].append(event)
    return runs


async def _replay_run(
    workspace: str,
    started: dict[str, Any],
    recorded: list[dict[str, Any]],
    history: list[Message],
    session_allow: list[Any],
    report: ReplayReport,
) -> Divergence | None:
    run_id = str(started["run"])
    root = Path(workspace)
    if not root.is_dir():
        raise ReplayError(f"the session's workspace {root} is gone")
    try:
        settings = load_settings({**started.get("settings", {}), "compaction": False})
    except ConfigError as exc:
        raise ReplayError(f"run {run_id}: {exc}") from None
    mode = Mode(started.get("mode") or settings.permissions.mode.value)
    decisions = [e for e in recorded if e["kind"] == "decision"]
    allowed = {d["callId"] for d in decisions if d["verdict"] == "allow"}
    executed: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
    for event in recorded:
        if event["kind"] == "observation" and event["callId"] in allowed:
            executed[event["name"]].append(event)
    root = root.resolve()
    outputs = [e for e in recorded if e["kind"] == "model_output"]
    model = _RecordedModel(settings.model.id, outputs, _model_usages(recorded))
    live = RunConfig.of(settings, model_id=model.model_id, root=root, mode=mode)
    # Replays are instant: a wall-clock limit would only measure this machine.
    budget = dataclasses.replace(live.budget, timeout_seconds=None)
    config = dataclasses.replace(live, budget=budget)
    report.configs[run_id] = config
    registry = ToolRegistry(_recorded_tools(executed))
    capture = _Capture()
    answers = _RecordedAnswers(decisions)
    local = LocalWorkspace(root)
    run = build_run(
        config,
        RunParts(
            provider=model,
            registry=registry,
            policy=make_policy(
                settings,
                mode=mode,
                root=root,
                edits_reviewed_by_workspace=bool(started.get("reviewed")),
                session_allow=session_allow,
            ),
            context=make_context(local, settings),
            projector=make_projector(settings, model_id=model.model_id, registry=registry),
            audit=capture,
            approver=answers,
            hooks=_RecordedNotes(_hook_notes(recorded)),
        ),
    )
    first = next((e for e in recorded if e["kind"] == "user_message"), None)
    prompt = message_from_dict(first["message"]) if first else Message("user", ())
    result = await run.run(run_id, prompt, list(history))
    report.calls += sum(1 for e in capture.events if e["kind"] == "tool_intent")
    return _first_difference(run_id, recorded, capture.events, result.reason, answers)


def _model_usages(recorded: list[dict[str, Any]]) -> list[Usage]:
    """What each model call of the run used (a compaction's call is not replayed)."""
    return [
        Usage.from_dict(e.get("usage") or {})
        for e in recorded
        if e["kind"] == "usage" and e.get("purpose") is None
    ]


def _hook_notes(recorded: list[dict[str, Any]]) -> dict[int, list[str]]:
    """The notes after a turn's tool results: what the turn hooks told the model."""
    notes: dict[int, list[str]] = {}
    for event in recorded:
        turn = event.get("turn")
        if event["kind"] != "tool_results" or not isinstance(turn, int) or turn in notes:
            continue
        message = message_from_dict(event["message"])
        notes[turn] = [b.text for b in message.content if isinstance(b, TextBlock)]
    return notes


def _first_difference(
    run_id: str,
    recorded: list[dict[str, Any]],
    replayed: list[dict[str, Any]],
    reason: TerminalReason,
    answers: _RecordedAnswers,
) -> Divergence | None:
    def decisions(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(e["callId"], e["verdict"], e["source"], e.get("answer"))
                for e in events if e["kind"] == "decision"]  # fmt: skip

    def failures(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(e["callId"], e.get("error")) for e in events if e["kind"] == "observation"]

    for label, pick in (("decision", decisions), ("tool result", failures)):
        for old, new in zip(pick(recorded), pick(replayed), strict=False):
            if old != new:
                return Divergence(run_id, f"{label} for call {old[0]}", old, new)
        old_all, new_all = pick(recorded), pick(replayed)
        if len(old_all) != len(new_all):
            return Divergence(run_id, f"number of {label}s", len(old_all), len(new_all))
    if answers.unexpected:
        return Divergence(run_id, "asked the person about", "nothing", answers.unexpected)
    finished = next((e for e in recorded if e["kind"] == "run_finished"), None)
    if finished is not None:
        was = TerminalReason(finished["result"]["terminalReason"])
        if was not in _UNREPEATABLE and was is not reason:
            return Divergence(run_id, "how the run ended", was.value, reason.value)
    return None
