"""Rewind: a session taken back to before one of its asks, the conversation and the files.

Ask N is the session's Nth ask: its Nth `run_started`, counted from 1 with the asks a
rewind took back, so a number never changes (`agentls show` prints them). A rewind to
ask N does two things, either or both:

- the conversation: every ask from N on still in the history leaves it; a `rewound`
  event names them, and the reducer (so the projector) honours it. The log keeps them.
- the files: every checkpointed turn since ask N began, not undone yet, is undone at
  once through the undo's plan: each file goes back to what it held before the first of
  those turns that changed it. A file changed since (by the person, or anything but
  those turns) is kept as it is and named, none of those turns' changes taken from it,
  so no file is left between two states; a path a link now leads out of the workspace
  is refused by name. When the files cannot be written, nothing is, and no half of the
  rewind happens.

Unlike `agentls undo`, a file changed since does not stop a rewind: the conversation
goes back either way, and files left as those asks made them would contradict it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentls.checkpoints.gitstore import GitError, GitStore
from agentls.checkpoints.undo import RestoreTarget, plan_undo_steps
from agentls.contracts.tooling import ToolError
from agentls.contracts.waiting import to_its_end
from agentls.conversation.checkpointing import finish_interrupted
from agentls.conversation.undo import BeforeRestore, undone_turns
from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.labels import request_words
from agentls.session.log import SessionLog
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from agentls.session.state import RunRecord, SessionState
from agentls.session.store import SessionNotFound, SessionStore

_PROMPT_WIDTH = 50

# An ask by its number (1-based, as `agentls show` numbers them) or by its run's id.
AskRef = int | str


class RewindRefused(Exception):
    """Nothing was changed; the message says why (no such ask, taken back already...)."""


@dataclass
class RewindResult:
    ask: int  # rewound to before this ask
    conversation: bool  # the asks taken back left the history
    files: bool  # the files half was asked for
    asks: list[int] = field(default_factory=list)  # taken back from the history
    runs: list[str] = field(default_factory=list)  # their runs
    prompts: list[str] = field(default_factory=list)  # their words, one short line each
    turns: list[int] = field(default_factory=list)  # checkpointed turns undone
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # changed since: kept as they are
    refused: list[str] = field(default_factory=list)  # a link leads them out
    dry_run: bool = False  # what a rewind would do; nothing was changed

    @property
    def whole(self) -> bool:
        """Every file went back (none kept or refused)."""
        return not self.kept and not self.refused

    def event(self) -> ev.Rewound:
        return ev.Rewound(
            ask=self.ask,
            asks=self.asks,
            runs=self.runs,
            conversation=self.conversation,
            files=self.files,
            turns=self.turns,
            restored=self.restored,
            removed=self.removed,
            kept=self.kept,
            refused=self.refused,
        )

    def describe(self) -> str:
        """What the rewind did (or, for a dry run, would do), for a person."""
        would = self.dry_run
        if self.conversation and self.asks:
            asks = _asks(self.asks, self.prompts)
            if would:
                head = f"rewinding to before ask {self.ask} would take back {asks}"
            else:
                them = "it" if len(self.asks) == 1 else "them"
                head = (
                    f"rewound to before ask {self.ask}: took back {asks} "
                    f"(the model no longer sees {them})"
                )
        else:
            put = "would put" if would else "put"
            head = f"{put} the files back as they were before ask {self.ask}"
            if not self.conversation:
                head += " (the conversation keeps its asks)"
        return f"{head}; {self._files_text(would)}"

    def _files_text(self, would: bool) -> str:
        if not self.files:
            return "files left as they are"
        verbs = ("restore", "remove", "keep") if would else ("restored", "removed", "kept")
        parts = []
        if self.restored:
            parts.append(f"{verbs[0]} {', '.join(self.restored)}")
        if self.removed:
            parts.append(f"{verbs[1]} {', '.join(self.removed)}")
        if self.kept:
            as_is = "as it is" if len(self.kept) == 1 else "as they are"
            parts.append(f"{verbs[2]} {', '.join(self.kept)} {as_is} (changed since; not put back)")
        if self.refused:
            parts.append(
                f"refused {', '.join(self.refused)}: a link now leads out of the workspace "
                "there, and nothing is written through it"
            )
        return "; ".join(parts) or "no file had changed since"


async def rewind(
    *,
    state_dir: Path | None,
    log_path: Path,
    root: Path,
    target: RestoreTarget | None,
    ask: AskRef,
    conversation: bool = True,
    files: bool = True,
    log: SessionLog | None = None,
    dry_run: bool = False,
    before_restore: BeforeRestore | None = None,
) -> RewindResult:
    """Rewind the session logged at ``log_path`` to before ``ask`` (the caller holds its
    lock, unless ``dry_run``), the files put back through ``target``; ``log``: the live
    session's writer, when there is one; ``before_restore``: told the runs taken back
    (turn None: all of each) before any file goes back, so the background processes
    they started stop first. RewindRefused when nothing would change or the files cannot
    be put back (then nothing changed)."""
    if not conversation and not files:
        raise RewindRefused("a rewind takes back the conversation, the files, or both")
    store = GitStore(state_dir, root) if files and state_dir is not None else None
    writer = None if dry_run else log
    if writer is None and not dry_run:  # its last line read: off an editor's event loop
        writer = await asyncio.to_thread(SessionLog, log_path)
    try:
        if store is not None and writer is not None:
            await finish_interrupted(store, writer)  # a crashed turn's files count too
        events = await asyncio.to_thread(read_events, log_path)
        result, checkpoints = _choose(events, ask, conversation=conversation, files=files)
        result.dry_run = dry_run
        if before_restore is not None and not dry_run:
            runs = dict.fromkeys([*result.runs, *(c.run for c in checkpoints if c.run)])
            await before_restore([(run, None) for run in runs])
        if checkpoints:
            if store is None or target is None:
                raise RewindRefused("this session's workspace cannot put files back")
            await _files(store, target, checkpoints, result, dry_run=dry_run)
        if writer is not None:
            writer.append(result.event())
            writer.turn_boundary()
        return result
    except GitError as exc:
        raise RewindRefused(f"the checkpoints of this workspace cannot be read: {exc}") from None
    finally:
        if store is not None:
            await store.aclose()
        if writer is not None and log is None:
            writer.close()


async def rewind_stored(
    store: SessionStore,
    session_id: str,
    ask: AskRef,
    *,
    face: str,
    target_for: Callable[[Path], RestoreTarget],
    conversation: bool = True,
    files: bool = True,
    dry_run: bool = False,
) -> RewindResult:
    """Rewind a session no conversation of this process has open: its workspace read from
    its log, the files put back through ``target_for(root)``, its lock taken on a thread
    (SessionHeld, naming the holder, while another process has it; a dry run takes none).
    SessionNotFound for no such log."""
    path = store.path_for(session_id)
    try:
        started = await asyncio.to_thread(read_events, path, kinds=(ev.SESSION_STARTED,))
    except FileNotFoundError:
        raise SessionNotFound(session_id, store.sessions_dir) from None
    root = Path(reduce(started).workspace)
    target = target_for(root)

    async def run(log: SessionLog | None) -> RewindResult:
        return await rewind(
            state_dir=store.state_dir, log_path=path, root=root, target=target, ask=ask,
            conversation=conversation, files=files, log=log, dry_run=dry_run,
        )  # fmt: skip

    if dry_run:
        return await run(None)
    claim = store.claim(session_id, face)
    try:
        await to_its_end(claim.acquire)  # SessionHeld names who runs it
        return await run(None)
    finally:
        claim.close()


def _choose(
    events: Sequence[SessionEvent], ask: AskRef, *, conversation: bool, files: bool
) -> tuple[RewindResult, list[ev.Checkpoint]]:
    """What a rewind to ``ask`` takes back: the asks, and the checkpoints to undo."""
    state = reduce(events)
    chosen = _ask(state, ask)
    number = chosen.number
    if conversation and chosen.rewound:
        raise RewindRefused(
            f"ask {number} is taken back already: rewind to an ask still in the "
            "conversation, or put back only the files"
        )
    taken = [r for r in state.runs[number - 1 :] if not r.rewound] if conversation else []
    checkpoints = _since(events, chosen.seq) if files else []
    if not taken and not checkpoints:
        raise RewindRefused(f"no file changed since ask {number} began is left to put back")
    result = RewindResult(
        ask=number,
        conversation=conversation,
        files=files,
        asks=[r.number for r in taken],
        runs=[r.run_id for r in taken],
        prompts=[_one_line(r.prompt) for r in taken],
        turns=[c.number for c in checkpoints],
    )
    return result, checkpoints


def _ask(state: SessionState, ask: AskRef) -> RunRecord:
    try:
        return state.ask(ask) if isinstance(ask, int) else state.ask_of_run(ask)
    except ValueError as exc:
        raise RewindRefused(str(exc)) from None


def _since(events: Sequence[SessionEvent], after_seq: int) -> list[ev.Checkpoint]:
    """The checkpointed turns since ``after_seq`` that changed files and are not undone."""
    undone = undone_turns(events)
    return [
        e
        for e in events
        if isinstance(e, ev.Checkpoint)
        and e.seq > after_seq
        and e.changed
        and e.number not in undone
    ]


async def _files(
    store: GitStore,
    target: RestoreTarget,
    checkpoints: list[ev.Checkpoint],
    result: RewindResult,
    *,
    dry_run: bool,
) -> None:
    plan = await plan_undo_steps(store, [(c.before, c.after) for c in checkpoints],
                                 target.current_bytes)  # fmt: skip
    if not dry_run and plan.restores:
        try:
            await target.restore_files([(r.path, r.content) for r in plan.restores])
        except ToolError as exc:  # a link made since the plan: refused before any write
            raise RewindRefused(f"nothing was rewound: {exc}") from None
    result.restored = [r.path for r in plan.restores if r.content is not None]
    result.removed = [r.path for r in plan.restores if r.content is None]
    result.kept = plan.conflicts
    result.refused = plan.refused


def _asks(numbers: list[int], prompts: list[str]) -> str:
    named = [f"{n} “{p}”" if p else str(n) for n, p in zip(numbers, prompts, strict=False)]
    if len(named) == 1:
        return f"ask {named[0]}"
    return "asks " + ", ".join(named[:-1]) + f" and {named[-1]}"


def _one_line(prompt: str) -> str:
    line = " ".join(request_words(prompt).split())
    cut = len(line) > _PROMPT_WIDTH
    return line[: _PROMPT_WIDTH - 1].rstrip() + "…" if cut else line
