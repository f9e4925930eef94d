"""The ConversationManager: sessions, settings, budgets, persistence and resume.

It owns the session store and builds one QueryLoop per run; it never runs a
tool or talks to a model itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentls.context.policy import needs_server_window
from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import Message, user_text
from agentls.contracts.observer import NullObserver, RunObserver
from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.waiting import to_its_end
from agentls.conversation.run_builder import (
    RunConfig,
    RunParts,
    build_run,
    build_session,
    make_projector,
    run_tools,
    warm_telemetry,
)
from agentls.conversation.run_ends import aborted_early, close_interrupted_run
from agentls.conversation.settings import Settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.intelligence.languages import Languages
from agentls.loop.compaction import Compactor
from agentls.mcp.hub import McpHub
from agentls.permissions.approvers import Approver, DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.permissions.rules import Rule, RuleSet, parse_rule
from agentls.pricing import price_for
from agentls.providers.base import ModelProvider, learn_window, warm_up, window_of
from agentls.providers.factory import make_provider
from agentls.runtime.registry import ToolRegistry
from agentls.session import events as ev
from agentls.session.lock import SessionClaim, SessionHeld
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from agentls.session.state import SessionState
from agentls.session.store import SessionStore
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.interface import ToolDefinition, Workspace
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.sandbox import NoSandboxNotice

logger = logging.getLogger(__name__)
NO_SANDBOX = "no_sandbox"  # the topic of the notice that commands run without a sandbox
ProviderFactory = Callable[[Settings], ModelProvider]


def provider_from_settings(settings: Settings) -> ModelProvider:
    model = settings.model
    return make_provider(
        model.id, model.base_url, temperature=model.temperature, tool_choice=model.tool_choice
    )


class SessionBusy(Exception):
    """A session runs one prompt at a time, in one process (the message names the other)."""


@dataclass
class RunHandle:
    session_id: str
    run_id: str
    task: asyncio.Task[RunResult]
    config: RunConfig  # what replaying this run repeats
    # A task cancelled before its first step runs none of its code, so the run could not
    # write its end: until it starts, a cancel is left for the run to find.
    started: bool = False
    cancelled_early: bool = False

    def cancel(self) -> bool:
        """Abort the run (it still writes its terminal event); False if it had ended."""
        if self.task.done():
            return False
        if self.started:
            self.task.cancel()
        else:
            self.cancelled_early = True
        return True

    async def result(self) -> RunResult:
        """Wait for the run; if the waiter is cancelled, the run is aborted and recorded."""
        try:
            return await asyncio.shield(self.task)
        except asyncio.CancelledError:
            self.cancel()
            return await self.task


class Conversation:
    """One session: its history, its session rules, and at most one run at a time."""

    def __init__(
        self,
        *,
        session_id: str,
        log: SessionLog,
        messages: list[Message],
        workspace: Workspace,
        settings: Settings,
        provider: ModelProvider,
        registry: ToolRegistry,
        edits_reviewed_by_workspace: bool = False,
        settings_files: SettingsFiles | None = None,
        state_dir: Path | None = None,
        mcp: McpHub | None = None,
        languages: Languages | None = None,
        claim: SessionClaim | None = None,
        unfinished: SessionState | None = None,
    ) -> None:
        self.session_id = session_id
        # One writer per session across processes; and a resumed session's crashed
        # run, closed only once the lock shows no one else is running it.
        self.claim = claim
        self._unfinished = unfinished
        self._held_between_runs = False  # an undo holds the session
        self._catching_up = False  # a run or an undo waits for the log to be read
        self._behind = False  # another process wrote: the log is read before the next run
        self.mcp = mcp
        self.log = log
        self.messages = messages
        self.workspace = workspace
        self.settings = settings
        self.provider = provider
        self.registry = registry
        self.settings_files = settings_files
        # Told once per session: the log keeps that it was (see resume_permissions).
        self.sandbox_notice = NoSandboxNotice(record=self._record_no_sandbox)
        _configure_sandbox(workspace, settings, self.sandbox_notice)
        self.languages = languages  # language servers, shared by a workspace's sessions
        parts = build_session(
            session_id=session_id,
            log=log,
            workspace=workspace,
            settings=settings,
            model_id=provider.model_id,
            registry=registry,
            edits_reviewed_by_workspace=edits_reviewed_by_workspace,
            state_dir=state_dir,
            languages=languages,
            resumed=unfinished is not None,
            server_window=window_of(provider),
        )
        self.policy = parts.policy
        self.context = parts.context
        self.projector = parts.projector
        self.problems_hook = parts.problems_hook
        self.checkpointer = parts.checkpointer
        self.hooks = parts.hooks()
        self.current: RunHandle | None = None
        self.session_deny: list[Rule] = []  # "always reject" rules, kept over settings changes
        self._mode_unlogged = False  # set while another process held the session

    @property
    def running(self) -> bool:
        return self.current is not None and not self.current.task.done()

    def set_mode(self, mode: Mode) -> None:
        """The session's mode from now on; logged, so the session keeps it when it is
        opened again (in any face or process). ValueError (nothing changed) for bypass
        mode where the managed settings turn it off."""
        managed = self.settings.managed
        if mode is Mode.BYPASS and managed is not None and managed.policy.disables_bypass:
            raise ValueError(
                f"bypass mode is turned off by the managed settings ({managed.policy.path})"
            )
        self.policy.mode = mode
        if self.running or self.claim is None:
            self.log.append(ev.ModeChanged(mode=mode.value))
            return
        try:
            self._check_holdable()
            self._take_claim()  # what another process wrote is read by the next run
        except SessionBusy as exc:
            logger.info("mode change logged when the session is next run here: %s", exc)
            self._mode_unlogged = True
            return
        try:
            self.log.resync()  # reads the log's last line only: this line's seq
            self.log.append(ev.ModeChanged(mode=mode.value))
            self._mode_unlogged = False
        finally:
            self._drop_claim()

    def remember_rules(self, *, allow: Sequence[Rule] = (), deny: Sequence[Rule] = ()) -> None:
        """Rules an "always" answer adds for the rest of the session, logged so the session
        keeps them when it is opened again (called during a run, which holds the lock)."""
        new_allow = [r for r in dict.fromkeys(allow) if r not in self.policy.session_allow]
        new_deny = [r for r in dict.fromkeys(deny) if r not in self.session_deny]
        if not new_allow and not new_deny:
            return
        self._take_rules(new_allow, new_deny)
        run = self.current.run_id if self.running and self.current is not None else None
        self.log.append(ev.SessionRules(
            run=run, allow=[str(r) for r in new_allow], deny=[str(r) for r in new_deny],
        ))  # fmt: skip

    def _take_rules(self, allow: Sequence[Rule], deny: Sequence[Rule]) -> None:
        self.policy.remember(allow)
        if deny:
            self.session_deny.extend(deny)
            # A new rule set, not an append: the one in force is the settings' own.
            self.policy.rules = self.policy.rules.merged(RuleSet(deny=list(deny)))

    def resume_permissions(self, state: SessionState) -> None:
        """A session opened from its log keeps its own mode (its last mode_changed) and the
        rules its "always" answers added."""
        if state.mode is not None and not self._mode_unlogged:
            try:
                self.policy.mode = Mode(state.mode)
            except ValueError:
                logger.warning("session %s: unknown mode %r logged", self.session_id, state.mode)
        allow = [r for r in _rules(state.session_allow) if r not in self.policy.session_allow]
        deny = [r for r in _rules(state.session_deny) if r not in self.session_deny]
        self._take_rules(allow, deny)
        self.sandbox_notice.given = self.sandbox_notice.given or NO_SANDBOX in state.notices

    def _record_no_sandbox(self, text: str) -> None:
        run = self.current.run_id if self.running and self.current is not None else None
        self.log.append(ev.Notice(run=run, topic=NO_SANDBOX, text=text))

    def apply_settings(self, settings: Settings) -> None:
        """New settings take effect from the next run (the model stays the session's). The
        mode changes only when the mode setting did: a session's own mode (set for it, or
        kept in its log) outlives refreshes that leave the setting as it was."""
        previous, self.settings = self.settings, settings
        self.policy.rules = settings.permissions.rules
        if self.session_deny:
            self.policy.rules = self.policy.rules.merged(RuleSet(deny=self.session_deny))
        self.policy.secret_patterns = settings.permissions.secret_patterns
        mode = settings.permissions.mode
        if mode is not previous.permissions.mode and mode is not self.policy.mode:
            self.set_mode(mode)
        self.context.command_timeout_seconds = settings.limits.command_timeout_seconds
        _configure_sandbox(self.workspace, settings, self.sandbox_notice)
        if self.checkpointer is not None:
            self.checkpointer.settings = settings.checkpoints
        self.projector.policy = settings.context_policy(
            self.provider.model_id, window_of(self.provider)
        )
        if self.problems_hook is not None:
            self.problems_hook.intelligence.configure(
                settings.language_servers, settings.problems,
                source=settings.wire.language_intelligence,
            )  # fmt: skip

    def resume_context(self, state: SessionState) -> None:
        """Pick up the last compaction summary and plan of a resumed session."""
        summary = state.context_summary
        if summary is not None:
            self.projector.restore(
                seq=summary.seq, summary=summary.text, pinned=summary.pinned, up_to=summary.up_to
            )
        for run in reversed(state.runs):
            if run.mode == Mode.PLAN.value and run.outcome == TerminalReason.COMPLETED.value:
                text = (run.result or {}).get("text")
                self.projector.plan = text if isinstance(text, str) and text else None
                break

    def save_rules(self, rules: Sequence[Rule]) -> str | None:
        """ "Always allow in this workspace": into .agentls/settings.json, approved."""
        if self.settings_files is None:
            return None
        path = self.settings_files.save_allow_rules(self.workspace.root, [str(r) for r in rules])
        self.log.append(ev.RulesSaved(rules=[str(r) for r in rules], path=str(path)))
        return str(path)

    async def start(
        self,
        prompt: str,
        *,
        approver: Approver | None = None,
        observer: RunObserver | None = None,
    ) -> RunHandle:
        """Start a run on ``prompt`` as a task; the handle cancels it or waits for it.

        What another process wrote to the session meanwhile is read first, on a worker
        thread (a whole read of the log: an editor's event loop does not wait for it)."""
        if self.running or self._catching_up:
            raise SessionBusy(f"session {self.session_id} already has a run going")
        if self._held_between_runs:
            raise SessionBusy(f"session {self.session_id} is being undone; ask again after")
        if self._take_claim():
            await self._catch_up_off_loop()
        try:
            return self._start(prompt, approver, observer)
        except BaseException:
            self._drop_claim()
            raise

    def _start(
        self, prompt: str, approver: Approver | None, observer: RunObserver | None
    ) -> RunHandle:
        run_id = f"run-{secrets.token_hex(4)}"
        mode = self.policy.mode  # settings.mode until agentls.setMode changes it
        if self._mode_unlogged:  # set while another process ran the session
            self.log.append(ev.ModeChanged(mode=mode.value))
            self._mode_unlogged = False
        self.log.append(ev.RunStarted(
            run=run_id, prompt=prompt, settings=self.settings.to_log(),
            mode=mode.value, reviewed=self.policy.edits_reviewed_by_workspace,
        ))  # fmt: skip
        planning = mode is Mode.PLAN
        observer = observer or NullObserver()
        config = self._run_config()
        built = build_run(
            config,
            RunParts(
                provider=self.provider,
                registry=self.registry,
                policy=self.policy,
                context=self.context,
                projector=self.projector,
                audit=self.log,
                approver=approver or DenyAllApprover(),
                observer=observer,
                hooks=self.hooks,
                rule_saver=self.save_rules,
                telemetry=self.settings.telemetry,
                session_id=self.session_id,
            ),
        )

        async def run() -> RunResult:
            handle.started = True
            try:
                try:
                    if handle.cancelled_early:
                        raise asyncio.CancelledError
                    if self.checkpointer is not None:
                        await self.checkpointer.recover()
                    # MCP servers start (bounded) before the first model call lists tools.
                    built.runtime.registry = await self.run_registry()
                except asyncio.CancelledError:
                    return aborted_early(self.log, observer, run_id, self.provider.model_id)
                result = await built.run(run_id, user_text(prompt), self.messages)
                if planning and result.reason is TerminalReason.COMPLETED and result.text:
                    self.projector.plan = result.text  # pinned through compactions
                return result
            finally:
                self.log.turn_boundary()  # durable shortly; close() syncs for good

        task = asyncio.create_task(run())
        task.add_done_callback(self._run_ended)
        handle = self.current = RunHandle(self.session_id, run_id, task, config)
        return handle

    def _run_config(self) -> RunConfig:
        return RunConfig.of(
            self.settings,
            model_id=self.provider.model_id,
            root=self.workspace.root,
            mode=self.policy.mode,
        )

    def _run_ended(self, task: asyncio.Task[RunResult]) -> None:
        if self.current is None or self.current.task is task:  # not the next run's lock
            self._drop_claim()

    @contextlib.asynccontextmanager
    async def claimed(self) -> AsyncIterator[None]:
        """Hold the session between runs (an undo), caught up with its log (read on a worker
        thread); SessionBusy if it is running here or elsewhere."""
        self._check_holdable()
        if self._take_claim():
            await self._catch_up_off_loop()
        self._held_between_runs = True
        try:
            yield
        finally:
            self._held_between_runs = False
            self._drop_claim()

    def _check_holdable(self) -> None:
        if self.running or self._held_between_runs or self._catching_up:
            raise SessionBusy(f"session {self.session_id} is running; cancel it first")

    def _take_claim(self) -> bool:
        """Take the session's lock (SessionBusy if another process holds it); True when the
        log must be read before going on: another process wrote to it, or a run crashed."""
        if self.claim is None:
            return False
        try:
            self.claim.acquire_now()
        except SessionHeld as exc:
            raise SessionBusy(str(exc)) from None
        self._behind = self._behind or self.log.moved()
        return self._behind or self._unfinished is not None

    def _drop_claim(self) -> None:
        if self.claim is not None:
            self.claim.release()

    async def _catch_up_off_loop(self) -> None:
        """`_catch_up` on a worker thread, holding the lock; nothing else takes the session
        meanwhile. A cancelled caller lets the lock go once the read is done."""
        self._catching_up = True
        try:
            await to_its_end(self._catch_up)
        except BaseException:
            self._drop_claim()
            raise
        finally:
            self._catching_up = False

    def _catch_up(self) -> None:
        """Take in what another process appended since this session was read (holding the
        lock), and close a run that crashed there: a whole read of the log."""
        if self._behind:
            self.log.resync()
            state = reduce(read_events(self.log.path))
            self.messages[:] = state.messages
            self.projector = make_projector(
                self.settings,
                model_id=self.provider.model_id,
                registry=self.registry,
                server_window=window_of(self.provider),
            )
            self.resume_context(state)
            self.resume_permissions(state)  # a mode another process set, its rules
            if self.checkpointer is not None:
                self.checkpointer.catch_up()
            self._unfinished = state
            self._behind = False
        if self._unfinished is not None:
            close_interrupted_run(self.log, self._unfinished, self.messages)
            self._unfinished = None

    async def compact(self) -> bool:
        """Summarise the older history now, as a run does when its context fills (a person
        asked: `/compact`). Logged like a run's compaction; False when too little is old."""
        async with self.claimed():  # not while a run (here or elsewhere) projects this history
            run_id = f"compact-{secrets.token_hex(4)}"
            config = self._run_config()  # projected and priced as the next run would be
            projection = self.projector.project(
                config.system,
                self.messages,
                self.registry.specs(config.mode),
                config.max_output_tokens,
                allow_compaction=False,
            )
            if projection.changed is not None:
                self.log.append(dataclasses.replace(projection.changed, run=run_id, turn=0))
            compactor = Compactor(self.provider, self.projector, self.log)
            usage = await compactor.compact(run_id, 0, reason="requested", forced=True)
            if usage is not None:
                cost = config.price.cost(usage) if config.price is not None else None
                self.log.append(ev.UsageEvent(
                    run=run_id, turn=0, usage=usage, cost_usd=cost, purpose="compaction",
                ))  # fmt: skip
            self.log.turn_boundary()
            return usage is not None

    async def run_registry(self) -> ToolRegistry:
        """The built-in tools and those of the MCP servers in the settings (started if need be)."""
        return await run_tools(
            self.registry, self.mcp, self.workspace.root, self.settings.mcp_servers
        )

    async def ask(
        self,
        prompt: str,
        *,
        approver: Approver | None = None,
        observer: RunObserver | None = None,
    ) -> RunResult:
        """Run the agent on ``prompt`` to its end; cancelling this coroutine aborts the run."""
        handle = await self.start(prompt, approver=approver, observer=observer)
        return await handle.result()

    def cancel(self) -> bool:
        return self.current is not None and self.current.cancel()

    def close(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.outside.stop()
        if self.languages is not None:
            self.languages.detach(self.workspace.root)
            self.languages = None
        if self.claim is not None:
            self.claim.close()
        self.log.close()


class ConversationManager:
    def __init__(
        self,
        store: SessionStore,
        *,
        tools: Sequence[ToolDefinition[Any]] = BUILTIN_TOOLS,
        provider_factory: ProviderFactory = provider_from_settings,
        face: str = "cli",
    ) -> None:
        self.store = store
        self.face = face  # who holds a session's lock while running it: "cli", "lsp", "acp"
        self.settings_files = SettingsFiles(store.state_dir)
        self.registry = ToolRegistry(tools)
        self.mcp = McpHub()  # MCP servers, shared by the sessions of a workspace
        self.languages = Languages()  # language servers, likewise
        self.provider_factory = provider_factory
        self.conversations: dict[str, Conversation] = {}

    def open(
        self,
        workspace: Workspace,
        settings: Settings,
        session_id: str | None = None,
        *,
        edits_reviewed_by_workspace: bool = False,
        mode: Mode | None = None,
    ) -> Conversation:
        """A new session, or an earlier one rebuilt from its log alone, in its own mode
        (its last mode_changed) unless ``mode``, one the person named for this opening
        (`--mode`), which is logged as a change.

        The provider is made first, so a missing key fails before anything is written.
        """
        known = self._known(session_id)
        if known is not None:
            return known
        provider, opened = self._provider_and_log(workspace, settings, session_id)
        return self._conversation(
            workspace, settings, provider, opened, edits_reviewed_by_workspace, mode
        )

    async def open_async(
        self,
        workspace: Workspace,
        settings: Settings,
        session_id: str | None = None,
        *,
        edits_reviewed_by_workspace: bool = False,
        mode: Mode | None = None,
    ) -> Conversation:
        """As `open`, the provider made (its SDK imported) and the session log made or read
        (a resumed one whole) on a thread."""
        known = self._known(session_id)
        if known is not None:
            return known
        provider, opened = await asyncio.to_thread(
            self._provider_and_log, workspace, settings, session_id
        )
        known = self._known(session_id)
        if known is not None:  # opened meanwhile
            opened[1].close()
            opened[3].close()
            return known
        return self._conversation(
            workspace, settings, provider, opened, edits_reviewed_by_workspace, mode
        )

    def _known(self, session_id: str | None) -> Conversation | None:
        return None if session_id is None else self.get(session_id)

    def _provider_and_log(
        self, workspace: Workspace, settings: Settings, session_id: str | None
    ) -> tuple[ModelProvider, tuple[str, SessionLog, SessionState | None, SessionClaim]]:
        provider = self._provider(settings)  # first: a missing key fails before any write
        warm_up(provider)  # on the opening thread, not in the first model call
        warm_telemetry(settings.telemetry)  # likewise the exporters, when enabled
        if needs_server_window(provider.model_id, settings.context.window):
            learn_window(provider, self.store.state_dir)  # remembered, or asked now
        return provider, self._open_log(workspace, settings, session_id)

    def _provider(self, settings: Settings) -> ModelProvider:
        provider = self.provider_factory(settings)
        if settings.limits.max_cost_usd is not None and price_for(provider.model_id) is None:
            raise ConfigError(
                f"maxCostUsd needs the price of {provider.model_id}, which the model table "
                "(agentls/data/models.json) does not know; drop the cost budget or use "
                "maxTokens instead"
            )
        return provider

    def _open_log(
        self, workspace: Workspace, settings: Settings, session_id: str | None
    ) -> tuple[str, SessionLog, SessionState | None, SessionClaim]:
        root = workspace.root
        if session_id is None:
            # A LocalWorkspace's root was resolved when it was made: not again here.
            resolved = isinstance(workspace, LocalWorkspace)
            session_id, log = self.store.create(root, settings.model.id, resolved=resolved)
            return session_id, log, None, self._claim(session_id)
        log, state = self.store.open(session_id)
        if Path(state.workspace).resolve() != root.resolve():
            log.close()
            raise ConfigError(
                f"session {session_id} belongs to workspace {state.workspace}, not {root}"
            )
        return session_id, log, state, self._claim(session_id)

    def _claim(self, session_id: str) -> SessionClaim:
        claim = self.store.claim(session_id, self.face)
        with contextlib.suppress(OSError):  # the first run says what is wrong
            claim.prepare()  # here (on the opening thread), not in the first ask
        return claim

    def _conversation(
        self,
        workspace: Workspace,
        settings: Settings,
        provider: ModelProvider,
        opened: tuple[str, SessionLog, SessionState | None, SessionClaim],
        edits_reviewed_by_workspace: bool,
        mode: Mode | None = None,
    ) -> Conversation:
        session_id, log, resumed, claim = opened
        conversation = Conversation(
            session_id=session_id,
            log=log,
            messages=list(resumed.messages) if resumed is not None else [],
            workspace=workspace,
            settings=settings,
            provider=provider,
            registry=self.registry,
            edits_reviewed_by_workspace=edits_reviewed_by_workspace,
            settings_files=self.settings_files,
            state_dir=self.store.state_dir,
            mcp=self.mcp,
            languages=self.languages,
            claim=claim,
            unfinished=resumed,
        )
        if resumed is not None:
            conversation.resume_context(resumed)
            conversation.resume_permissions(resumed)
        managed = settings.managed
        if mode is Mode.BYPASS and managed is not None and managed.policy.disables_bypass:
            mode = settings.permissions.mode  # the flag's bypass, already overridden and said
        if mode is not None and mode.value != (resumed.mode if resumed is not None else None):
            conversation.set_mode(mode)
        self.conversations[session_id] = conversation
        return conversation

    def get(self, session_id: str) -> Conversation | None:
        return self.conversations.get(session_id)

    def close(self) -> None:
        for conversation in self.conversations.values():
            conversation.cancel()
            conversation.close()
        self.conversations.clear()


def _rules(texts: Sequence[str]) -> list[Rule]:
    """The rules a session's log recorded (their own spelling, which parses back)."""
    rules = []
    for text in texts:
        try:
            rules.append(parse_rule(text))
        except ValueError as exc:
            logger.warning("session rule %r left out: %s", text, exc)
    return rules


def _configure_sandbox(workspace: Workspace, settings: Settings, notice: NoSandboxNotice) -> None:
    use_sandbox = getattr(workspace, "use_sandbox", None)
    if use_sandbox is not None:
        use_sandbox(dataclasses.replace(settings.sandbox, notice=notice))
