"""One open session: `Conversation` (its runs, mode and rules, settings, undo, cost), the
handle of a run, and the parts a session is made of.

It builds one QueryLoop per run through `run_builder`; it never runs a tool or talks to
a model itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentls.checkpoints.undo import RestoreTarget
from agentls.contracts.decisions import ApprovalAnswer
from agentls.contracts.errors import ConfigError
from agentls.contracts.messages import ImageBlock, Message, user_prompt
from agentls.contracts.observer import HookNotice, NullObserver, RunObserver
from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.processes import ProcessInfo, ProcessRead
from agentls.contracts.reasoning import REASONING_LEVELS, ReasoningLevel
from agentls.contracts.usage import add_cost, has_real_cost
from agentls.contracts.waiting import to_its_end
from agentls.conversation.command_files import CommandUse, use_event
from agentls.conversation.guidance import NO_GUIDANCE, Guidance, load_guidance
from agentls.conversation.prompt_images import (
    CheckedImage,
    PromptImage,
    check_images,
    kept_images,
)
from agentls.conversation.reasoning import RunReasoning, resolve_reasoning
from agentls.conversation.remembering import SessionMemory
from agentls.conversation.rewind import AskRef, RewindResult, rewind
from agentls.conversation.run_builder import (
    RunConfig,
    RunParts,
    build_run,
    build_session,
    make_hook_engine,
    make_projector,
    run_tools,
)
from agentls.conversation.run_ends import aborted_early, close_interrupted_run
from agentls.conversation.session_processes import ProcessListener, SessionProcesses
from agentls.conversation.settings import Settings, load_settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.conversation.undo import UndoRefused, UndoResult, undo
from agentls.intelligence.languages import Languages
from agentls.loop.compaction import Compactor
from agentls.loop.steering import Steer, SteeringQueue
from agentls.mcp.hub import McpHub
from agentls.permissions.approvers import Approver, DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.permissions.policy import SessionRuleChange
from agentls.permissions.rules import Rule, parse_rule
from agentls.providers.base import ModelProvider
from agentls.runtime.registry import ToolRegistry
from agentls.session import events as ev
from agentls.session.images import SessionImages
from agentls.session.lock import SessionClaim, SessionHeld
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from agentls.session.state import RunRecord, SessionState
from agentls.workspace.interface import Workspace
from agentls.workspace.sandbox import NoSandboxNotice

logger = logging.getLogger(__name__)
NO_SANDBOX = "no_sandbox"  # the topic of the notice that commands run without a sandbox


class SessionBusy(Exception):
    """A session runs one prompt at a time, in one process (the message names the other)."""


@dataclass
class RunHandle:
    session_id: str
    run_id: str
    task: asyncio.Task[RunResult]
    config: RunConfig  # what replaying this run repeats
    guidance: Guidance = NO_GUIDANCE  # the instruction files and memories it was given
    # What the person says while it works, for the model at its next turn boundary.
    steering: SteeringQueue = field(default_factory=lambda: SteeringQueue(""))
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


@dataclass(frozen=True, slots=True)
class OpenedSession:
    """A session's log, made or read, and its lock, before its conversation is built."""

    session_id: str
    log: SessionLog
    resumed: SessionState | None  # what the log held; None for a new session
    claim: SessionClaim

    def close(self) -> None:
        self.log.close()
        self.claim.close()


@dataclass(frozen=True, slots=True)
class SharedParts:
    """What a manager's sessions share: the tools, the settings files, the state folder,
    and the MCP and language servers (shared by a workspace's sessions)."""

    registry: ToolRegistry
    settings_files: SettingsFiles | None = None
    state_dir: Path | None = None
    mcp: McpHub | None = None
    languages: Languages | None = None


class Conversation:
    """One session: its history, its session rules, and at most one run at a time."""

    def __init__(
        self,
        opened: OpenedSession,
        *,
        workspace: Workspace,
        settings: Settings,
        provider: ModelProvider,
        shared: SharedParts,
        edits_reviewed_by_workspace: bool = False,
    ) -> None:
        self.session_id = opened.session_id
        # One writer per session across processes; and a resumed session's crashed
        # run, closed only once the lock shows no one else is running it.
        self._claim = opened.claim
        self._unfinished = opened.resumed
        self._held_between_runs = False  # an undo, a rewind or a compaction holds the session
        self._catching_up = False  # a run or an undo waits for the log to be read
        self._behind = False  # another process wrote: the log is read before the next run
        self._mcp = shared.mcp
        self.log = log = opened.log
        self.messages = list(opened.resumed.messages) if opened.resumed is not None else []
        self.workspace = workspace
        self.settings = settings
        self.provider = provider
        self._registry = shared.registry
        self._settings_files = shared.settings_files
        self._state_dir = shared.state_dir  # where the checkpoints an undo reads are
        # The session's model calls so far (USD); None once one price was unknown.
        self._cost_usd: float | None = opened.resumed.cost_usd if opened.resumed else 0.0
        # Told once per session: the log keeps that it was (see resume_permissions).
        self.sandbox_notice = NoSandboxNotice(record=self._record_no_sandbox)
        _configure_sandbox(workspace, settings, self.sandbox_notice)
        self._languages = shared.languages  # language servers, shared by a workspace's sessions
        parts = build_session(
            session_id=opened.session_id,
            log=log,
            workspace=workspace,
            settings=settings,
            model_id=provider.model_id,
            registry=shared.registry,
            edits_reviewed_by_workspace=edits_reviewed_by_workspace,
            state_dir=shared.state_dir,
            languages=shared.languages,
            resumed=opened.resumed is not None,
            server_window=provider.server_window,
        )
        self.policy = parts.policy
        self._context = parts.context
        if shared.state_dir is not None:  # `remember` keeps what a person said yes to
            self._context.memory = SessionMemory(
                shared.state_dir, workspace.root, opened.session_id, log.path
            )
        self.projector = parts.projector
        self._problems_hook = parts.problems_hook
        self._checkpointer = parts.checkpointer
        self._hooks = parts.hooks()
        self.current: RunHandle | None = None
        self._mode_unlogged = False  # set while another process held the session
        # Process events that came while another process held the session: logged once
        # this one holds it again.
        self._unlogged: list[ev.Event] = []
        self._processes = SessionProcesses(workspace.processes, self._log_process)
        if opened.resumed is not None:
            self._processes.continue_ids(opened.resumed.last_process)
        # The settings' hooks; SessionStart fires with this object's first run, and
        # SessionEnd when it is shut down after one.
        self._hook_engine = make_hook_engine(
            opened.session_id, log.path, workspace.root, lambda: self.settings
        )
        self._started_from_log = opened.resumed is not None
        self._session_started = False

    @property
    def running(self) -> bool:
        return self.current is not None and not self.current.task.done()

    @property
    def root(self) -> Path:
        return self.workspace.root

    @property
    def mode(self) -> Mode:
        return self.policy.mode

    @property
    def model_id(self) -> str:
        """The session's model, ``provider:name``; it stays the session's over settings."""
        return self.provider.model_id

    def relative(self, path: str) -> str:
        """``path`` relative to the session's root (ToolError for a path outside it)."""
        return self.workspace.relative(path)

    def history(self) -> list[Message]:
        """The session's messages so far (a copy)."""
        return list(self.messages)

    def needs_review(self, tool: str, path: str) -> bool:
        """Whether the person must see an edit of ``path`` by ``tool`` before it lands."""
        return self.policy.needs_review(tool, path)

    def review_rules(self, tool: str, path: str) -> list[Rule] | None:
        """None when an edit of ``path`` by ``tool`` needs no review, else the rules an
        "always" answer to its review adds."""
        return self.policy.review_rules(tool, path)

    @property
    def context_window(self) -> int:
        """The model's context window in tokens, as the next run projects for it."""
        return self.projector.policy.window

    @property
    def shows_cost(self) -> bool:
        """Whether the session's cost is a real one (a scripted model's price is nominal)."""
        return has_real_cost(self.model_id)

    @property
    def cost_usd(self) -> float | None:
        """What the session's model calls cost so far (USD), in this process and those it
        caught up with; None once one price was unknown."""
        return self._cost_usd

    def _add_cost(self, cost: float | None) -> None:
        self._cost_usd = add_cost(self._cost_usd, cost)

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
        if self.running or self._claim is None:
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

    @property
    def reasoning(self) -> RunReasoning:
        """The reasoning the next run asks of the model (ConfigError: it cannot take the
        setting's level; the next ask says so too)."""
        return self._reasoning_of(self.settings)

    @property
    def reasoning_level(self) -> ReasoningLevel:
        """The level the next run works at: the setting's, else the model's default."""
        try:
            return self.reasoning.level
        except ConfigError:  # a level the model cannot take: the next ask says so
            return self.settings.model.reasoning or "off"

    def reasoning_levels(self) -> list[ReasoningLevel]:
        """The levels this session's model takes."""
        levels = []
        for level in REASONING_LEVELS:
            try:
                self._reasoning_of(self.settings, level)
            except ConfigError:
                continue
            levels.append(level)
        return levels

    def set_reasoning(self, level: ReasoningLevel) -> RunReasoning:
        """The session's reasoning level from its next run on (each run logs it with its
        settings); ConfigError, and nothing changed, when the model cannot take it."""
        settings = load_settings({"reasoning": level}, base=self.settings)
        resolved = self._reasoning_of(settings)
        self.apply_settings(settings)
        return resolved

    def _reasoning_of(
        self, settings: Settings, level: ReasoningLevel | None = None
    ) -> RunReasoning:
        model = settings.model
        return resolve_reasoning(
            level or model.reasoning, self.model_id, answer_tokens=model.max_output_tokens,
            tool_choice=model.tool_choice,
        )  # fmt: skip

    def remember_rules(self, *, allow: Sequence[Rule] = (), deny: Sequence[Rule] = ()) -> None:
        """Rules "always" answers add for the rest of the session, logged so the session
        keeps them when it is opened again (called during a run, which holds the lock)."""
        self._log_rules(
            self.policy.take_answer(ApprovalAnswer.ALLOW_ALWAYS, allow),
            self.policy.take_answer(ApprovalAnswer.DENY_ALWAYS, deny),
        )

    def take_answer(self, answer: ApprovalAnswer, rules: Sequence[Rule]) -> None:
        """What a person's answer to a review the workspace asked (not the gate's question,
        which the runtime keeps) means for the session: an "always" keeps ``rules`` (the
        policy's suggestion; none for a call no rule covers, which then counts once)."""
        self._log_rules(self.policy.take_answer(answer, rules))

    def _log_rules(self, *changes: SessionRuleChange) -> None:
        allow = [str(r) for change in changes for r in change.allow]
        deny = [str(r) for change in changes for r in change.deny]
        if not allow and not deny:
            return
        run = self.current.run_id if self.running and self.current is not None else None
        self.log.append(ev.SessionRules(run=run, allow=allow, deny=deny))

    def resume_permissions(self, state: SessionState) -> None:
        """A session opened from its log keeps its own mode (its last mode_changed) and the
        rules its "always" answers added."""
        if state.mode is not None and not self._mode_unlogged:
            try:
                self.policy.mode = Mode(state.mode)
            except ValueError:
                logger.warning("session %s: unknown mode %r logged", self.session_id, state.mode)
        self.policy.remember(_rules(state.session_allow))
        self.policy.forbid(_rules(state.session_deny))
        self.sandbox_notice.given = self.sandbox_notice.given or NO_SANDBOX in state.notices

    def _log_process(self, event: ev.ProcessEvent) -> None:
        """A process event into the log: at once where this process holds the session (a
        run, an undo), else with the lock taken for it; while another process holds the
        session, kept for the next time this one does."""
        if self.running and self.current is not None:
            if event.run is None:
                event = dataclasses.replace(event, run=self.current.run_id)
            self.log.append(event)
        elif self._held_between_runs or self._claim is None:
            self.log.append(event)
        else:
            self._log_between_runs(event)

    def _log_between_runs(self, event: ev.Event) -> None:
        try:
            self._check_holdable()
            self._take_claim()  # what another process wrote is read by the next run
        except SessionBusy as exc:
            logger.info("logged when the session is next run here: %s", exc)
            self._unlogged.append(event)
            return
        try:
            self.log.resync()  # reads the log's last line only: this line's seq
            self.log.append(event)
        finally:
            self._drop_claim()

    def _record_no_sandbox(self, text: str) -> None:
        run = self.current.run_id if self.running and self.current is not None else None
        self.log.append(ev.Notice(run=run, topic=NO_SANDBOX, text=text))

    def apply_settings(self, settings: Settings) -> None:
        """New settings take effect from the next run (the model stays the session's). The
        mode changes only when the mode setting did: a session's own mode (set for it, or
        kept in its log) outlives refreshes that leave the setting as it was."""
        previous, self.settings = self.settings, settings
        self.policy.use_rules(settings.permissions.rules)
        self.policy.secret_patterns = settings.permissions.secret_patterns
        mode = settings.permissions.mode
        if mode is not previous.permissions.mode and mode is not self.policy.mode:
            self.set_mode(mode)
        self._context.command_timeout_seconds = settings.limits.command_timeout_seconds
        _configure_sandbox(self.workspace, settings, self.sandbox_notice)
        if self._checkpointer is not None:
            self._checkpointer.settings = settings.checkpoints
        self.projector.policy = settings.context_policy(
            self.provider.model_id, self.provider.server_window
        )
        if self._problems_hook is not None:
            self._problems_hook.intelligence.configure(
                settings.language_servers, settings.problems,
                source=settings.wire.language_intelligence,
            )  # fmt: skip

    def resume_context(self, state: SessionState) -> None:
        """Pick up the last compaction summary and the plan agreed in plan mode of a
        resumed session."""
        summary = state.context_summary
        if summary is not None:
            self.projector.restore(
                seq=summary.seq, summary=summary.text, pinned=summary.pinned, up_to=summary.up_to
            )
        self.projector.plan = state.agreed_plan  # a rewind took back those of its asks

    def save_rules(self, rules: Sequence[Rule]) -> str | None:
        """ "Always allow in this workspace": into .agentls/settings.json, approved."""
        if self._settings_files is None:
            return None
        path = self._settings_files.save_allow_rules(self.workspace.root, [str(r) for r in rules])
        self.log.append(ev.RulesSaved(rules=[str(r) for r in rules], path=str(path)))
        return str(path)

    async def start(
        self,
        prompt: str,
        *,
        approver: Approver | None = None,
        observer: RunObserver | None = None,
        folder: Path | None = None,
        command: CommandUse | None = None,
        images: Sequence[PromptImage] = (),
    ) -> RunHandle:
        """Start a run on ``prompt`` as a task; the handle cancels it or waits for it.
        ``folder``: where the ask is about (instruction files are read down to it).
        ``command``: the prompt command ``prompt`` was expanded from (`manager.prompt`),
        logged with its file, its `allowed-tools` rules added for the session.
        ``images``: what the person attached, sent with the prompt.

        A reasoning level the model cannot take, or an image it would not take, is a
        ConfigError (ImageRefused) before anything is logged or sent. What another process
        wrote to the session meanwhile is read first, on a worker thread (a whole read of
        the log: an editor's event loop does not wait for it)."""
        if self.running or self._catching_up:
            raise SessionBusy(f"session {self.session_id} already has a run going")
        if self._held_between_runs:
            raise SessionBusy(
                f"session {self.session_id} is being undone or rewound; ask again after"
            )
        self._run_config()  # the reasoning setting checked
        checked = check_images(images, self.model_id, self.provider.image_limits)
        if self._take_claim():
            await self._catch_up_off_loop()
        try:
            guidance = await asyncio.to_thread(self.guidance, folder)
            blocks = await asyncio.to_thread(self._keep_images, checked) if checked else ()
            return self._start(user_prompt(prompt, blocks), approver, observer, guidance, command)
        except BaseException:
            self._drop_claim()
            raise

    def _keep_images(self, checked: Sequence[CheckedImage]) -> tuple[ImageBlock, ...]:
        """The images stored in the session's folder (blocking), as the prompt's blocks."""
        return kept_images(checked, SessionImages.beside(self.log.path))

    @property
    def state_dir(self) -> Path | None:
        """The state folder (the memory store's); None where this session keeps none."""
        return self._state_dir

    def guidance(self, folder: Path | None = None) -> Guidance:
        """The instruction files and memories for an ask about ``folder`` (blocking); what
        fails to load is a warning, never a failed run."""
        try:
            return load_guidance(
                self.workspace.root, folder, self.settings.wire.instructions, self._state_dir
            )
        except Exception as exc:
            logger.warning("instructions and memory left out: %s", exc, exc_info=True)
            return Guidance(NO_GUIDANCE.instructions, (), "", (f"not loaded: {exc}",))

    def _start(
        self,
        prompt: Message,
        approver: Approver | None,
        observer: RunObserver | None,
        guidance: Guidance = NO_GUIDANCE,
        command: CommandUse | None = None,
    ) -> RunHandle:
        run_id = f"run-{secrets.token_hex(4)}"
        mode = self.policy.mode  # settings.mode until agentls.setMode changes it
        config = self._run_config(guidance.text)  # before anything is logged: it may refuse
        if self._mode_unlogged:  # set while another process ran the session
            self.log.append(ev.ModeChanged(mode=mode.value))
            self._mode_unlogged = False
        # A command's run is listed under what the person typed; the model gets its text.
        asked = command.invocation if command is not None else prompt.text
        unlogged, self._unlogged = self._unlogged, []
        for event in unlogged:
            self.log.append(event)
        self.log.append(ev.RunStarted(
            run=run_id, prompt=asked, settings=self.settings.to_log(),
            mode=mode.value, reviewed=self.policy.edits_reviewed_by_workspace,
        ))  # fmt: skip
        if command is not None:
            self._use_command(run_id, command)
        if guidance.text or guidance.warnings:
            self.log.append(guidance.event(run_id))
        observer = observer or NullObserver()
        steering = SteeringQueue(run_id)
        built = build_run(
            config,
            RunParts(
                provider=self.provider,
                registry=self._registry,
                policy=self.policy,
                context=self._context,
                projector=self.projector,
                audit=self.log,
                approver=approver or DenyAllApprover(),
                observer=observer,
                hooks=self._hooks,
                rule_saver=self.save_rules,
                telemetry=self.settings.telemetry,
                session_id=self.session_id,
                steering=steering,
                hook_engine=self._hook_engine,
            ),
        )

        async def run() -> RunResult:
            handle.started = True
            try:
                try:
                    if handle.cancelled_early:
                        raise asyncio.CancelledError
                    if self._checkpointer is not None:
                        await self._checkpointer.recover()
                    # MCP servers start (bounded) before the first model call lists tools.
                    built.runtime.registry = await self.run_registry()
                    start = self._session_start()
                    said = await built.start_session(run_id, start) if start else ()
                except asyncio.CancelledError:
                    result = aborted_early(self.log, observer, run_id, self.provider.model_id)
                    self._add_cost(result.cost_usd)
                    return result
                result = await built.run(run_id, prompt, self.messages, said)
                self._add_cost(result.cost_usd)
                # A run that ends in plan mode answers with its plan (an approved plan
                # switched the mode and was kept when it was approved).
                planning = self.policy.mode is Mode.PLAN
                if planning and result.reason is TerminalReason.COMPLETED and result.text:
                    self.projector.keep_plan(result.text)  # pinned through compactions
                return result
            finally:
                steering.close()  # what the run never reached is not delivered
                self.log.turn_boundary()  # durable shortly; close() syncs for good

        task = asyncio.create_task(run())
        task.add_done_callback(self._run_ended)
        handle = self.current = RunHandle(
            self.session_id, run_id, task, config, guidance, steering=steering
        )
        return handle

    def _use_command(self, run_id: str, command: CommandUse) -> None:
        """Log the command file a run was asked with; its `allowed-tools` (only a trusted
        file has rules) become session allow rules, logged as an "always" answer's are."""
        self.log.append(use_event(command, run_id))
        new = [r for r in command.command.rules if r not in self.policy.session_allow]
        if new:
            self.policy.remember(new)
            self.log.append(ev.SessionRules(run=run_id, allow=[str(r) for r in new]))

    def steer(self, text: str) -> Steer | None:
        """Give ``text`` to the running run's model at its next turn boundary, as the
        person's words; None when no run is going here (send it as an ask then)."""
        if not self.running or self.current is None or not text.strip():
            return None
        return self.current.steering.put(text)

    def _session_start(self) -> str | None:
        """The SessionStart source of this object's first run ("startup" for a new session,
        "resume" for one read from its log); None after it."""
        if self._session_started:
            return None
        self._session_started = True
        return "resume" if self._started_from_log else "startup"

    async def end_session(self, notify: Callable[[str], None] | None = None) -> None:
        """SessionEnd hooks, for a session that ran here (the process shuts down): run
        holding the session, logged; their failures go to ``notify``. A session running
        or held elsewhere is left as it is."""
        if not self._session_started or not self._hook_engine.source.has("SessionEnd"):
            return
        self._session_started = False
        try:
            self._check_holdable()
            self._take_claim()
        except SessionBusy as exc:
            logger.info("SessionEnd hooks not run: %s", exc)
            return
        try:
            self.log.resync()  # reads the log's last line only: the next seq
            observer = _Notices(notify) if notify is not None else None
            hooks = self._hook_engine.bind(self.log, observer, lambda: self.policy.mode.value)
            await hooks.session_ended("other")
        finally:
            self._drop_claim()

    def _run_config(self, guidance: str = "") -> RunConfig:
        return RunConfig.of(
            self.settings,
            model_id=self.provider.model_id,
            root=self.workspace.root,
            mode=self.policy.mode,
            guidance=guidance,
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
        if self._claim is None:
            return False
        try:
            self._claim.acquire_now()
        except SessionHeld as exc:
            raise SessionBusy(str(exc)) from None
        self._behind = self._behind or self.log.moved()
        return self._behind or self._unfinished is not None

    def _drop_claim(self) -> None:
        if self._claim is not None:
            self._claim.release()

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
            self._adopt_history(state)
            self.resume_permissions(state)  # a mode another process set, its rules
            self._processes.continue_ids(state.last_process)
            self._cost_usd = state.cost_usd
            if self._checkpointer is not None:
                self._checkpointer.catch_up()
            self._unfinished = state
            self._behind = False
        if self._unfinished is not None:
            close_interrupted_run(self.log, self._unfinished, self.messages)
            self._unfinished = None

    def _adopt_history(self, state: SessionState) -> None:
        """The history as the log folds it now (after another process wrote, or a rewind),
        with a projector that starts again from it (the prompts' images read back)."""
        self.messages[:] = SessionImages.beside(self.log.path).filled(state.messages)
        self.projector = make_projector(
            self.settings,
            model_id=self.provider.model_id,
            registry=self._registry,
            server_window=self.provider.server_window,
        )
        self.resume_context(state)

    def _reload_history(self) -> None:
        self._adopt_history(reduce(read_events(self.log.path)))

    async def compact(self) -> bool:
        """Summarise the older history now, as a run does when its context fills (a person
        asked: `/compact`). Logged like a run's compaction; False when too little is old."""
        async with self.claimed():  # not while a run (here or elsewhere) projects this history
            run_id = f"compact-{secrets.token_hex(4)}"
            config = self._run_config()  # projected and priced as the next run would be
            projection = self.projector.project(
                config.system,
                self.messages,
                self._registry.specs(config.mode),
                config.max_output_tokens,
                allow_compaction=False,
            )
            if projection.changed is not None:
                self.log.append(dataclasses.replace(projection.changed, run=run_id, turn=0))
            hooks = self._hook_engine.bind(self.log, mode=lambda: self.policy.mode.value)
            if hooks.has("PreCompact"):
                hooks.run_id = run_id
                await hooks.compacting(0, "manual")
            compactor = Compactor(self.provider, self.projector, self.log)
            usage = await compactor.compact(run_id, 0, reason="requested", forced=True)
            if usage is not None:
                cost = config.price.cost(usage) if config.price is not None else None
                self._add_cost(cost)
                self.log.append(ev.UsageEvent(
                    run=run_id, turn=0, usage=usage, cost_usd=cost, purpose="compaction",
                ))  # fmt: skip
            self.log.turn_boundary()
            return usage is not None

    def _restore_target(
        self, target_for: Callable[[Path], RestoreTarget] | None
    ) -> RestoreTarget | None:
        """What puts files back: the session's workspace, else ``target_for(root)``."""
        if isinstance(self.workspace, RestoreTarget):
            return self.workspace
        return target_for(self.root) if target_for is not None else None

    async def rewind(
        self,
        ask: AskRef,
        *,
        conversation: bool = True,
        files: bool = True,
        dry_run: bool = False,
        target_for: Callable[[Path], RestoreTarget] | None = None,
    ) -> RewindResult:
        """Take the session back to before ``ask`` (its number, from 1, or its run's id):
        the asks from it on leave the history, the files their turns changed go back (see
        `conversation/rewind.py`). Holding the session, caught up with its log; the history
        and the projection follow at once. ``dry_run``: what it would do, nothing changed.
        SessionBusy while it runs here or elsewhere; RewindRefused."""
        target = self._restore_target(target_for)
        if dry_run:
            return await rewind(
                state_dir=self._state_dir, log_path=self.log.path, root=self.root,
                target=target, ask=ask, conversation=conversation, files=files, dry_run=True,
            )  # fmt: skip
        async with self.claimed():
            result = await rewind(
                state_dir=self._state_dir, log_path=self.log.path, root=self.root,
                target=target, ask=ask, conversation=conversation, files=files, log=self.log,
                before_restore=self._stop_processes_taken_back,
            )  # fmt: skip
            if conversation:
                await to_its_end(self._reload_history)
            return result

    async def asks(self) -> list[RunRecord]:
        """The session's asks in order, numbered from 1 as `agentls show` prints them, those
        a rewind took back marked (the log read on a thread)."""
        state = await asyncio.to_thread(lambda: reduce(read_events(self.log.path)))
        return state.runs

    async def undo(
        self, turn: int | None, target_for: Callable[[Path], RestoreTarget] | None = None
    ) -> UndoResult:
        """Undo the last ask (``turn`` None) or one turn, the files put back through the
        session's workspace (or ``target_for(root)`` where it cannot put files back):
        holding the session, caught up with its log. SessionBusy while it runs here or
        elsewhere; UndoRefused when nothing could be undone."""
        target = self._restore_target(target_for)
        if target is None:
            raise UndoRefused("this session's workspace cannot put files back")
        if self._state_dir is None:
            raise UndoRefused("this session keeps no checkpoints")
        async with self.claimed():
            return await undo(
                self._state_dir, self.log.path, self.root, target, turn, self.log,
                before_restore=self._stop_processes_of,
            )  # fmt: skip

    async def _stop_processes_taken_back(
        self, turns: Sequence[tuple[str | None, int | None]]
    ) -> None:
        await self._processes.stop_started_by(turns, "rewind")

    async def _stop_processes_of(self, turns: Sequence[tuple[str | None, int | None]]) -> None:
        """An undo stops the processes the turns it takes back started (turn None: any
        turn of that run) before it puts files back."""
        await self._processes.stop_started_by(turns, "undo")

    def watch_processes(self, listener: ProcessListener) -> Callable[[], None]:
        """Tell ``listener`` (a face) each start, exit and stop of the session's background
        processes (also those between runs); the returned function stops it."""
        return self._processes.watch(listener)

    def background_processes(self) -> list[ProcessInfo]:
        """The session's background processes in this process, running and ended."""
        return self._processes.listed()

    async def stop_process(self, pid: str) -> ProcessRead:
        """A person stops one (TERM, then KILL after a grace); ToolError(not_found) for an
        id the session does not have."""
        return await self._processes.stop(pid, "person")

    async def end_processes(self) -> list[ProcessInfo]:
        """The session ends here: its background processes stopped (logged, told), then its
        sandbox; the processes stopped."""
        return await self.workspace.end_commands()

    async def run_registry(self) -> ToolRegistry:
        """The built-in tools and those of the MCP servers in the settings (started if need be)."""
        return await run_tools(
            self._registry, self._mcp, self.workspace.root, self.settings.mcp_servers
        )

    async def ask(
        self,
        prompt: str,
        *,
        approver: Approver | None = None,
        observer: RunObserver | None = None,
        command: CommandUse | None = None,
    ) -> RunResult:
        """Run the agent on ``prompt`` to its end; cancelling this coroutine aborts the run."""
        handle = await self.start(prompt, approver=approver, observer=observer, command=command)
        return await handle.result()

    def cancel(self) -> bool:
        return self.current is not None and self.current.cancel()

    def close(self) -> None:
        self.workspace.kill_commands()  # what `end_processes` left, at once
        self._processes.close()
        if self._checkpointer is not None:
            self._checkpointer.outside.stop()
        if self._languages is not None:
            self._languages.detach(self.workspace.root)
            self._languages = None
        if self._claim is not None:
            self._claim.close()
        self.log.close()


class _Notices(NullObserver):
    """What hooks tell the person outside a run, as one line each."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        self.say(f"{notice.event} hook `{notice.command}`: {notice.text}")


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
    workspace.use_sandbox(dataclasses.replace(settings.sandbox, notice=notice))
