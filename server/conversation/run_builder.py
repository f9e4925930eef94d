"""The one place a run is put together: policy, runtime, loop, hooks, price and limits.

A live run (`Conversation.start`, behind every face) and its replay (`agentls
replay`) are both built here from a `RunConfig`, so they run with the same
configuration; only the parts that touch the world differ: a replay's model,
person, tools and turn hooks play back the recording.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentls.checkpoints.gitstore import GitStore
from agentls.context.projector import ContextProjector
from agentls.contracts.messages import Message
from agentls.contracts.observer import NullObserver, RunObserver
from agentls.contracts.outcomes import RunResult
from agentls.contracts.tooling import Risk
from agentls.contracts.window import ServerWindow
from agentls.conversation.checkpointing import Checkpointer
from agentls.conversation.settings import Settings
from agentls.conversation.system_prompt import system_prompt
from agentls.hooks.engine import HookEngine, SessionFacts
from agentls.hooks.runner import LiveHooks
from agentls.intelligence.after_edits import ProblemsAfterEdits
from agentls.intelligence.languages import Languages
from agentls.loop.budget import Budget
from agentls.loop.hooks import ChainedHooks, NoHooks, TurnHooks
from agentls.loop.query_loop import QueryLoop
from agentls.mcp.config import McpServerConfig
from agentls.mcp.hub import McpHub
from agentls.permissions.approvers import Approver, DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import Rule
from agentls.pricing import ModelPrice, price_for
from agentls.providers.base import ModelProvider
from agentls.runtime.pipeline import AuditLog, ToolRuntime
from agentls.runtime.registry import ToolRegistry
from agentls.session.log import SessionLog
from agentls.telemetry.config import TelemetryConfig
from agentls.workspace.interface import ToolContext, Workspace

RuleSaver = Callable[[Sequence[Rule]], str | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunConfig:
    """What a run takes from the settings, the model and the mode; a replay repeats it."""

    mode: Mode
    system: str
    max_output_tokens: int
    price: ModelPrice | None  # None: the cost is unknown, and no USD budget can apply
    budget: Budget

    @classmethod
    def of(
        cls, settings: Settings, *, model_id: str, root: Path, mode: Mode, guidance: str = ""
    ) -> RunConfig:
        return cls(
            mode=mode,
            system=system_prompt(str(root), mode) + guidance,  # guidance: instructions, memory
            max_output_tokens=settings.model.max_output_tokens,
            price=price_for(model_id),
            budget=settings.budget,
        )


@dataclass(slots=True, kw_only=True)
class RunParts:
    """What a run acts through. A session keeps most of them across its runs."""

    provider: ModelProvider
    registry: ToolRegistry
    policy: PermissionPolicy
    context: ToolContext
    projector: ContextProjector
    audit: AuditLog
    approver: Approver = field(default_factory=DenyAllApprover)
    observer: RunObserver = field(default_factory=NullObserver)
    hooks: TurnHooks = field(default_factory=NoHooks)
    rule_saver: RuleSaver | None = None
    # A live run's telemetry (a replay has none): its events exported when enabled.
    telemetry: TelemetryConfig | None = None
    session_id: str = ""
    # The settings' hooks (a replay's play back the log); None: no hooks.
    hook_engine: HookEngine | None = None


@dataclass(frozen=True, slots=True)
class Run:
    config: RunConfig
    runtime: ToolRuntime
    loop: QueryLoop

    async def run(
        self, run_id: str, prompt: Message, messages: list[Message], context: Sequence[str] = ()
    ) -> RunResult:
        """``context``: what the session's hooks said for the model, after the prompt."""
        return await self.loop.run(run_id, prompt, messages, self.config.budget, context)

    async def start_session(self, run_id: str, source: str) -> tuple[str, ...]:
        """The session's first run here: its SessionStart hooks fire (``source``: "startup"
        or "resume"); what they say for the model."""
        hooks = self.runtime.settings_hooks
        if not hooks.has("SessionStart"):
            return ()
        hooks.run_id = run_id
        return await hooks.session_started(source)


def build_run(config: RunConfig, parts: RunParts) -> Run:
    audit, observer = _watched(config, parts)
    policy = parts.policy
    hooks = (parts.hook_engine or HookEngine()).bind(audit, observer, lambda: policy.mode.value)
    runtime = ToolRuntime(
        registry=parts.registry,
        policy=parts.policy,
        approver=parts.approver,
        context=parts.context,
        audit=audit,
        observer=observer,
        rule_saver=parts.rule_saver,
        settings_hooks=hooks,
    )
    loop = QueryLoop(
        provider=parts.provider,
        runtime=runtime,
        projector=parts.projector,
        audit=audit,
        observer=observer,
        price=config.price,
        system=config.system,
        max_output_tokens=config.max_output_tokens,
        hooks=parts.hooks,
    )
    return Run(config, runtime, loop)


def _watched(config: RunConfig, parts: RunParts) -> tuple[AuditLog, RunObserver]:
    """The run's log and observer, also feeding its telemetry when that is enabled (the
    SDK loads then, never otherwise)."""
    if parts.telemetry is None or not parts.telemetry.enabled:
        return parts.audit, parts.observer
    from agentls.telemetry.wiring import watch_run

    return watch_run(
        parts.telemetry, session_id=parts.session_id, model_id=parts.provider.model_id,
        mode=config.mode.value, person=parts.approver.person, audit=parts.audit,
        observer=parts.observer,
    )  # fmt: skip


def warm_telemetry(telemetry: TelemetryConfig) -> None:
    """Load the SDK and start the exporters of an enabled telemetry now (where sessions open,
    on a thread), not in the first run's start on an editor's event loop."""
    if telemetry.enabled:
        from agentls.telemetry.wiring import warm

        warm(telemetry)


def finish_telemetry() -> None:
    """Send what telemetry still holds (bounded: `telemetry.export.EXIT_FLUSH_SECONDS`) and
    say what never reached the collector; a process that exported nothing loads nothing."""
    export = sys.modules.get("agentls.telemetry.export")
    if export is not None:
        export.shutdown_all()


def make_policy(
    settings: Settings,
    *,
    mode: Mode,
    root: Path,
    edits_reviewed_by_workspace: bool = False,
    session_allow: list[Rule] | None = None,
) -> PermissionPolicy:
    return PermissionPolicy(
        settings.permissions.rules,
        mode,
        edits_reviewed_by_workspace=edits_reviewed_by_workspace,
        session_allow=session_allow if session_allow is not None else [],
        root=root,
        secret_patterns=settings.permissions.secret_patterns,
    )


def make_projector(
    settings: Settings,
    *,
    model_id: str,
    registry: ToolRegistry,
    server_window: ServerWindow | None = None,
) -> ContextProjector:
    policy = settings.context_policy(model_id, server_window)
    return ContextProjector(policy, write_tools=registry.write_tools)


def make_hook_engine(
    session_id: str, log_path: Path, root: Path, settings: Callable[[], Settings]
) -> HookEngine:
    """A live session's hooks: those of its settings as they are at each event, run in
    the sandbox its commands get."""
    live = LiveHooks(lambda: settings().hooks, root, lambda: settings().sandbox)
    return HookEngine(live, SessionFacts(session_id, str(log_path), root))


def make_context(workspace: Workspace, settings: Settings) -> ToolContext:
    return ToolContext(workspace, command_timeout_seconds=settings.limits.command_timeout_seconds)


@dataclass(slots=True, kw_only=True)
class SessionParts:
    """What a live session keeps across its runs, built once and reconfigured by settings."""

    policy: PermissionPolicy
    context: ToolContext
    projector: ContextProjector
    checkpointer: Checkpointer | None = None
    problems_hook: ProblemsAfterEdits | None = None

    def hooks(self) -> TurnHooks:
        return ChainedHooks(self.checkpointer, self.problems_hook)


def build_session(
    *,
    session_id: str,
    log: SessionLog,
    workspace: Workspace,
    settings: Settings,
    model_id: str,
    registry: ToolRegistry,
    edits_reviewed_by_workspace: bool = False,
    state_dir: Path | None = None,
    languages: Languages | None = None,
    resumed: bool = True,
    server_window: ServerWindow | None = None,
) -> SessionParts:
    """The policy, tool context (with language intelligence), projector and turn hooks
    (checkpoints, problems after edits) of a session."""
    context = make_context(workspace, settings)
    parts = SessionParts(
        policy=make_policy(
            settings,
            mode=settings.permissions.mode,
            root=workspace.root,
            edits_reviewed_by_workspace=edits_reviewed_by_workspace,
        ),
        context=context,
        projector=make_projector(
            settings, model_id=model_id, registry=registry, server_window=server_window
        ),
    )
    if languages is not None:
        intelligence = languages.attach(
            workspace, settings.language_servers, settings.problems,
            source=settings.wire.language_intelligence, sandbox=settings.sandbox,
        )  # fmt: skip
        context.intelligence = intelligence
        parts.problems_hook = ProblemsAfterEdits(
            intelligence, lambda name: _risk(registry, name), log.append
        )
    if state_dir is not None:
        parts.checkpointer = Checkpointer(
            session_id=session_id,
            store=GitStore(state_dir, workspace.root),
            session_log=log,
            workspace=workspace,
            registry=registry,
            context=context,
            settings=settings.checkpoints,
            resumed=resumed,
        )
    return parts


async def run_tools(
    registry: ToolRegistry,
    mcp: McpHub | None,
    root: Path,
    servers: Mapping[str, McpServerConfig],
) -> ToolRegistry:
    """The built-in tools and those of the MCP servers in the settings (started if need be)."""
    if mcp is None or not servers:
        return registry
    external = await mcp.tools(root, servers)
    return registry.extended(external)


def _risk(registry: ToolRegistry, name: str) -> Risk | None:
    tool = registry.get(name)
    return tool.risk if tool is not None else None
