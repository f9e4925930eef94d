"""`agentls replay`: the regression tool for the runtime.

Each recorded run is built again as a live run is (`run_builder`: the same
policy, price, budgets and output limit) and run through the real loop and
runtime, with the model's recorded output and usage, the person's recorded
answers, the tools' recorded results, the turn hooks' recorded notes and the
settings' hooks as their runs were logged (no hook runs again; nothing touches
the workspace), and the runtime's fresh
decisions are compared with the recorded ones: permission verdicts and their
reasons, error codes of calls that never ran, and how each run ended. The
first difference is reported.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest, Verdict
from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import Message, TextBlock
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
from agentls.hooks.engine import HookEngine, RecordedHooks
from agentls.mcp.config import McpServerConfig
from agentls.mcp.tools import PREFIX as MCP_PREFIX
from agentls.mcp.tools import recorded_definition
from agentls.permissions.modes import Mode
from agentls.providers.base import ProviderBase
from agentls.runtime.registry import ToolRegistry
from agentls.session import events as ev
from agentls.session.events import EventT, SessionEvent
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
    # Instruction files whose bytes differ now from what a run read ("run: path").
    instructions_changed: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.divergence is None

    def describe(self) -> str:
        changed = (
            "\ninstructions changed since: " + ", ".join(self.instructions_changed)
            if self.instructions_changed
            else ""
        )
        if self.divergence is None:
            return (
                f"replayed {self.runs} run(s) and {self.calls} tool call(s): "
                "the runtime made the same decisions"
            ) + changed
        d = self.divergence
        return (
            f"first divergence in {d.run}: {d.what}\n  recorded: {d.recorded}\n"
            f"  replayed: {d.replayed}"
        ) + changed


class _RecordedModel(ProviderBase):
    """Yields the run's recorded model output and what each call used, turn by turn."""

    def __init__(
        self, model_id: str, outputs: Sequence[ev.ModelOutput], usages: Sequence[Usage]
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
        usage = self._usages.popleft() if self._usages else Usage()
        yield MessageDone(event.message, event.stop_reason, usage)


class _RecordedNotes:
    """The turn hooks of a replay: the notes the live hooks gave the model, per turn."""

    def __init__(self, notes: dict[int, list[str]]) -> None:
        self._notes = notes

    async def before_act(self, run_id: str, turn: int, intents: Sequence[ToolIntent]) -> None:
        return None

    async def after_act(self, run_id: str, turn: int) -> list[str]:
        return self._notes.pop(turn, [])


class _RecordedAnswers:
    def __init__(self, decisions: Sequence[ev.Decision]) -> None:
        self._answers = {d.call_id: d.answer for d in decisions if d.answer is not None}
        # A recorded yes that ran the gate's spelling came from an automatic approver.
        self._automatic = {d.call_id for d in decisions if d.runs is not None}
        self.unexpected: list[str] = []
        self.person = True
        self.reason = ""  # the log keeps the answers, not why a person said no

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer = self._answers.get(request.call_id)
        self.person = request.call_id not in self._automatic
        if answer is None:
            self.unexpected.append(request.call_id)
            return ApprovalAnswer.DENY
        return answer


class _Capture:
    def __init__(self) -> None:
        self.events: list[ev.Event] = []

    def append(self, event: EventT) -> EventT:
        self.events.append(event)
        return event

    stage = append  # in memory, staging is appending

    def turn_boundary(self) -> None:
        pass


def _recorded_tools(
    observations: dict[str, deque[ev.ObservationEvent]],
    external: set[str],
    servers: Mapping[str, McpServerConfig],
) -> list[ToolDefinition[Any]]:
    """The built-in tools and the run's MCP tools (``external``), each giving back what the
    live run's calls gave, in order."""

    def recorded(name: str) -> Callable[[], Awaitable[ToolOutput]]:
        async def give() -> ToolOutput:
            queue = observations.get(name)
            if not queue:
                raise ToolError(ErrorCode.EXECUTION_FAILED, "replay: no recorded result")
            recorded = queue.popleft()
            if recorded.ok:
                return ToolOutput(recorded.content, dict(recorded.meta))
            code = recorded.error or ErrorCode.EXECUTION_FAILED
            message = recorded.content.removeprefix(f"Error ({code.value}): ")
            raise ToolError(code, message, retryable=recorded.retryable)

        return give

    def runner(name: str) -> Any:
        give = recorded(name)

        async def run(args: BaseModel, ctx: ToolContext) -> ToolOutput:
            return await give()

        return run

    def call(name: str) -> Callable[[dict[str, Any]], Awaitable[ToolOutput]]:
        give = recorded(name)

        async def run(arguments: dict[str, Any]) -> ToolOutput:
            return await give()

        return run

    builtin = [dataclasses.replace(tool, run=runner(tool.name)) for tool in BUILTIN_TOOLS]
    return builtin + [recorded_definition(name, servers, call(name)) for name in sorted(external)]


def _external_tools(recorded: Sequence[SessionEvent]) -> set[str]:
    """The MCP tools the live run had: named by its calls and not refused as unknown."""
    unknown = {
        e.call_id for e in recorded
        if isinstance(e, ev.ObservationEvent) and e.error is ErrorCode.NOT_FOUND
    }  # fmt: skip
    return {
        e.name for e in recorded
        if isinstance(e, ev.ToolIntent) and e.name.startswith(f"{MCP_PREFIX}__")
        and e.call_id not in unknown
    }  # fmt: skip


async def replay_session(events: Sequence[SessionEvent]) -> ReplayReport:
    report = ReplayReport()
    reducer = Reducer()
    runs = _split_runs(events)
    session_allow: list[Any] = []
    for event in events:
        if isinstance(event, ev.RunStarted) and event.run in runs:
            history = [m for m in reducer.state.messages]
            divergence = await _replay_run(
                reducer.state.workspace, event, runs[event.run], history, session_allow, report
            )
            report.runs += 1
            if divergence is not None:
                report.divergence = divergence
                return report
        reducer.apply(event)
    return report


def _split_runs(events: Sequence[SessionEvent]) -> dict[str, list[SessionEvent]]:
    runs: dict[str, list[SessionEvent]] = defaultdict(list)
    for event in events:
        if event.run is not None:
            runs[event.run].append(event)
    return runs


async def _replay_run(
    workspace: str,
    started: ev.RunStarted,
    recorded: list[SessionEvent],
    history: list[Message],
    session_allow: list[Any],
    report: ReplayReport,
) -> Divergence | None:
    run_id = str(started.run)
    root = Path(workspace)
    if not root.is_dir():
        raise ReplayError(f"the session's workspace {root} is gone")
    try:
        settings = load_settings({**started.settings, "compaction": False})
    except ConfigError as exc:
        raise ReplayError(f"run {run_id}: {exc}") from None
    mode = Mode(started.mode or settings.permissions.mode.value)
    decisions = [e for e in recorded if isinstance(e, ev.Decision)]
    allowed = {d.call_id for d in decisions if d.verdict is Verdict.ALLOW}
    executed: dict[str, deque[ev.ObservationEvent]] = defaultdict(deque)
    for event in recorded:
        if isinstance(event, ev.ObservationEvent) and event.call_id in allowed:
            executed[event.name].append(event)
    root = root.resolve()
    report.instructions_changed.extend(
        f"{path} ({run_id})" for path in _changed_instructions(root, recorded)
    )
    outputs = [e for e in recorded if isinstance(e, ev.ModelOutput)]
    model = _RecordedModel(settings.model.id, outputs, _model_usages(recorded))
    live = RunConfig.of(settings, model_id=model.model_id, root=root, mode=mode)
    # Replays are instant: a wall-clock limit would only measure this machine.
    budget = dataclasses.replace(live.budget, timeout_seconds=None)
    config = dataclasses.replace(live, budget=budget)
    report.configs[run_id] = config
    registry = ToolRegistry(
        _recorded_tools(executed, _external_tools(recorded), settings.mcp_servers)
    )
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
                edits_reviewed_by_workspace=started.reviewed,
                session_allow=session_allow,
            ),
            context=make_context(local, settings),
            projector=make_projector(settings, model_id=model.model_id, registry=registry),
            audit=capture,
            approver=answers,
            hooks=_RecordedNotes(_hook_notes(recorded)),
            hook_engine=HookEngine(
                RecordedHooks([e for e in recorded if isinstance(e, ev.HookRun)])
            ),
        ),
    )
    first = next((e for e in recorded if isinstance(e, ev.UserMessage)), None)
    prompt = first.message if first else Message("user", ())
    result = await run.run(run_id, prompt, list(history))
    report.calls += sum(1 for e in capture.events if isinstance(e, ev.ToolIntent))
    return _first_difference(run_id, recorded, capture.events, result.reason, answers)


def _changed_instructions(root: Path, recorded: list[SessionEvent]) -> list[str]:
    """The instruction files a run read whose bytes are not the same now (or are gone)."""
    changed: list[str] = []
    for event in recorded:
        if not isinstance(event, ev.Guidance):
            continue
        for item in event.files:
            try:
                now = hashlib.sha256((root / item.path).read_bytes()).hexdigest()
            except OSError:
                now = None
            if now != item.sha256:
                changed.append(item.path)
    return changed


def _model_usages(recorded: list[SessionEvent]) -> list[Usage]:
    """What each model call of the run used (a compaction's call is not replayed)."""
    return [e.usage for e in recorded if isinstance(e, ev.UsageEvent) and e.purpose is None]


def _hook_notes(recorded: list[SessionEvent]) -> dict[int, list[str]]:
    """The notes after a turn's tool results: what the turn hooks told the model."""
    notes: dict[int, list[str]] = {}
    for event in recorded:
        turn = event.turn
        if not isinstance(event, ev.ToolResults) or turn is None or turn in notes:
            continue
        notes[turn] = [b.text for b in event.message.content if isinstance(b, TextBlock)]
    return notes


def _first_difference(
    run_id: str,
    recorded: Sequence[ev.Event],
    replayed: Sequence[ev.Event],
    reason: TerminalReason,
    answers: _RecordedAnswers,
) -> Divergence | None:
    def decisions(events: Sequence[ev.Event]) -> list[tuple[Any, ...]]:
        return [(e.call_id, e.verdict.value, e.source, e.answer and e.answer.value, e.runs)
                for e in events if isinstance(e, ev.Decision)]  # fmt: skip

    def failures(events: Sequence[ev.Event]) -> list[tuple[Any, ...]]:
        return [(e.call_id, e.error and e.error.value)
                for e in events if isinstance(e, ev.ObservationEvent)]  # fmt: skip

    for label, pick in (("decision", decisions), ("tool result", failures)):
        for old, new in zip(pick(recorded), pick(replayed), strict=False):
            if old != new:
                return Divergence(run_id, f"{label} for call {old[0]}", old, new)
        old_all, new_all = pick(recorded), pick(replayed)
        if len(old_all) != len(new_all):
            return Divergence(run_id, f"number of {label}s", len(old_all), len(new_all))
    if answers.unexpected:
        return Divergence(run_id, "asked the person about", "nothing", answers.unexpected)
    finished = next((e for e in recorded if isinstance(e, ev.RunFinished)), None)
    if finished is not None:
        was = TerminalReason(finished.result.terminal_reason)
        if was not in _UNREPEATABLE and was is not reason:
            return Divergence(run_id, "how the run ended", was.value, reason.value)
    return None
