"""Projects the session's history into the next turn's ModelInput.

The history (the fact, rebuilt from the log) is never changed. The projection
is ``[summary head] + history[cut:]`` with old bulky tool results elided, and
is kept up to date incrementally: each message's estimate and elided form is
computed once, so a turn costs what changed, not the length of the session.

Policies, in order: (1) bulky tool results older than the verbatim turns are
elided to a stub once they pass their budget, in steps that elide all of them
at once (so the prefix a provider caches stays stable between steps); the
first step keeps the oldest ones, up to half the request, as they are, so no
step costs the cache more than half a request; (2) above the
threshold the loop runs a compaction (``compaction_job`` / ``adopt``); (3) if
the prompt still would not fit, bulky results of all but the latest turn are
elided. A cut only ever falls before an assistant message or a plain prompt,
so every tool_use keeps its tool_result.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import replace

from agentls.context.elision import elide_message
from agentls.context.estimate import (
    Calibration,
    measure,
    message_tokens,
    tools_tokens,
    window_in,
)
from agentls.context.pinned import DEFAULT_WRITE_TOOLS, PinnedFacts
from agentls.context.policy import BULKY_TOOL_RESULT_CHARS, ContextPolicy
from agentls.context.summary import head_message, summary_request
from agentls.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from agentls.contracts.model_io import ModelInput, ToolSpec
from agentls.contracts.usage import Usage
from agentls.contracts.values import value
from agentls.session.events import ContextProjected


@value
class Projection:
    request: ModelInput
    estimated_tokens: int
    wants_compaction: bool
    # The ``context_projected`` event (the loop adds run and turn) when the shape moved.
    changed: ContextProjected | None


@value
class CompactionJob:
    start: int  # the previous cut: messages start..cut-1 are new to the summary
    cut: int
    request: ModelInput
    pinned: str


class ContextProjector:
    def __init__(
        self,
        policy: ContextPolicy | None = None,
        *,
        write_tools: frozenset[str] = DEFAULT_WRITE_TOOLS,
    ) -> None:
        self.policy = policy or ContextPolicy()
        self.plan: str | None = None  # the last plan made in plan mode, pinned
        self.calibration = Calibration()
        self._write_tools = write_tools
        self._restored: tuple[int | None, str, str, int] | None = None
        self._limits_of: ContextPolicy | None = None
        self._limits = (0, 0, 0)
        self._reset()

    def _reset(self) -> None:
        self._seen = 0
        self._last_fact: Message | None = None
        self._forms: list[Message] = []  # each message as projected (elided or not)
        self._form_tokens: list[int] = []
        self._bulky: list[int] = []  # tokens of bulky tool results per message
        self._assistants: list[int] = []
        self._history: Sequence[Message] = ()
        self._pins = PinnedFacts(self._write_tools)
        self._pinned_up_to = 0  # pins are gathered lazily, when a compaction needs them
        self._cut = 0
        self._tail_start = 0  # where the verbatim turns begin
        self._frontier = 0  # bulky results before this are elided
        self._head_end: int | None = None  # ...except those before this (kept as they are)
        self._old_bulky = 0  # bulky tokens in [frontier, tail_start), not yet elided
        self._elided = 0
        self._summary: str | None = None
        self._summary_seq: int | None = None
        self._view: list[Message] = []
        self._view_tokens = 0
        self._announced: tuple[int, int | None, int] = (0, None, 0)
        self._fixed_key: tuple[str, Sequence[ToolSpec]] | None = None
        self._fixed_tokens = 0
        self._last_raw = 0

    def keep_plan(self, plan: str) -> None:
        """The plan agreed in plan mode (approved, or a plan-mode run's answer): pinned."""
        self.plan = plan

    # --- the projection -----------------------------------------------------

    def project(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_output_tokens: int,
        *,
        allow_compaction: bool = True,
    ) -> Projection:
        """The next ModelInput; its message list is the projector's own and grows in place.

        ``wants_compaction`` asks the caller to run ``compaction_job`` and project again
        (with ``allow_compaction=False``, which falls back to eliding instead).
        """
        self._sync(messages)
        policy = self.policy
        if policy is not self._limits_of:  # the policy's figures, once per policy
            self._limits_of = policy
            self._limits = (policy.compact_at, policy.hard_limit, policy.old_tool_results_budget)
        compact_at, hard_limit, old_budget = self._limits
        self._move_tail()
        fixed = self._fixed(system, tools)
        if self._old_bulky > old_budget:
            # All of them, so the next step is a whole budget away.
            self._keep_head(fixed)
            self._advance_frontier(self._tail_start, lambda: self._old_bulky <= 0)
        estimate = self._estimate(fixed)
        if estimate > compact_at:  # free before a model call: elide all the old bulk
            self._advance_frontier(self._tail_start, lambda: False)
            estimate = self._estimate(fixed)
        may_compact = allow_compaction and policy.compaction
        wants = False
        if estimate > compact_at and may_compact and self._next_cut(False) is not None:
            wants = True
        elif estimate > hard_limit and self._assistants:
            # No compaction to be had: elide the bulk of all but the latest turn.
            self._drop_head()
            self._advance_frontier(
                self._assistants[-1], lambda: self._estimate(fixed) <= compact_at
            )
            estimate = self._estimate(fixed)
        self._last_raw = fixed + self._view_tokens
        # What the next step leaves as it is: up to the frontier (at least the head).
        stable = max(1, self._frontier - self._cut + (1 if self._summary is not None else 0))
        request = ModelInput(system, self._view, tools, max_output_tokens, stable)
        return Projection(request, estimate, wants, self._shape_change(estimate))

    def _estimate(self, fixed: int) -> int:
        return self.calibration.apply(fixed + self._view_tokens)

    def _fixed(self, system: str, tools: Sequence[ToolSpec]) -> int:
        key = self._fixed_key
        if key is None or key[0] is not system or key[1] is not tools:
            self._fixed_key = (system, tools)
            self._fixed_tokens = len(system) // 4 + tools_tokens(tools)
        return self._fixed_tokens

    def _sync(self, messages: Sequence[Message]) -> None:
        count = len(messages)
        seen = self._seen
        if count < seen or (seen and messages[seen - 1] is not self._last_fact):
            self._reset()  # not the history we were following: start again
            seen = 0
        for index in range(seen, count):
            self._add(index, messages[index])
        if count > seen:
            self._seen = count
            self._last_fact = messages[count - 1]
        self._history = messages
        if self._restored is not None:
            self._apply_restored()

    def _add(self, index: int, message: Message) -> None:
        tokens, bulky = measure(message, BULKY_TOOL_RESULT_CHARS)
        self._forms.append(message)
        self._form_tokens.append(tokens)
        self._bulky.append(bulky)
        if message.role == "assistant":
            self._assistants.append(index)
        self._view.append(message)
        self._view_tokens += tokens

    def _move_tail(self) -> None:
        assistants = self._assistants
        keep = self.policy.verbatim_turns
        tail = assistants[-keep] if len(assistants) >= keep else 0
        if tail > self._tail_start:
            start = max(self._tail_start, self._frontier, self._cut)
            self._old_bulky += sum(self._bulky[start:tail])
            self._tail_start = tail

    def _keep_head(self, fixed: int) -> None:
        """Before the first step: the oldest results, up to half the request, stay as
        they are, so that step still leaves half the request cached."""
        if self._head_end is not None or self._frontier > self._cut:
            return
        half = (fixed + self._view_tokens) // 2
        tokens = fixed + self._view_tokens - sum(self._form_tokens[self._cut :])  # the head
        index = self._cut
        while index < self._tail_start and tokens < half:
            tokens += self._form_tokens[index]
            index += 1
        self._head_end = self._frontier = index
        self._old_bulky = sum(self._bulky[index : self._tail_start])

    def _drop_head(self) -> None:
        """Out of room: the kept results go too."""
        if self._head_end is not None:
            for index in range(self._cut, self._head_end):
                if self._bulky[index]:
                    self._elide(index)
            self._head_end = None
            self._old_bulky = sum(self._bulky[self._frontier : self._tail_start])

    def _advance_frontier(self, limit: int, enough: Callable[[], bool]) -> None:
        index = max(self._frontier, self._cut)
        while index < limit and not enough():
            if self._bulky[index]:
                self._elide(index)
            index += 1
        self._frontier = max(self._frontier, index)

    def _elide(self, index: int) -> None:
        form = elide_message(self._forms[index], self._uses_before(index))
        tokens = message_tokens(form)
        self._view_tokens += tokens - self._form_tokens[index]
        self._forms[index] = form
        self._form_tokens[index] = tokens
        self._view[index - self._cut + (1 if self._summary is not None else 0)] = form
        if index < self._tail_start:
            self._old_bulky -= self._bulky[index]
        self._elided += 1

    def _shape_change(self, estimate: int) -> ContextProjected | None:
        # The frontier passing messages with nothing bulky changes nothing the model sees.
        shape = (self._cut, self._summary_seq, self._elided)
        if shape == self._announced:
            return None
        self._announced = shape
        return ContextProjected(
            from_message=self._cut,
            summary_seq=self._summary_seq,
            elided_from=self._cut if self._head_end is None else self._head_end,
            elided_before=self._frontier,
            bulky_chars=BULKY_TOOL_RESULT_CHARS,
            elided=self._elided,
            estimated_tokens=estimate,
            compact_at=self.policy.compact_at,
            window=self.policy.window,
        )

    # --- compaction ---------------------------------------------------------

    def _next_cut(self, forced: bool) -> int | None:
        """Where a compaction would cut, if it is worth a model call.

        It keeps the verbatim turns and summarises at least as many (one when
        forced by an overflow), so compactions cannot follow one another turn
        after turn.
        """
        assistants = self._assistants
        keep = 1 if forced else self.policy.verbatim_turns
        if len(assistants) <= keep:
            return None
        cut = assistants[-keep]
        if cut > 0 and _is_prompt(self._forms[cut - 1]):
            cut -= 1  # the prompt stays with the turn it started
        turns = bisect_left(assistants, cut) - bisect_left(assistants, self._cut)
        return cut if turns >= keep else None

    def compaction_job(self, *, forced: bool = False) -> CompactionJob | None:
        """The summary call to make now (after ``project``), or None if nothing can go."""
        cut = self._next_cut(forced)
        if cut is None:
            return None
        start = self._cut
        region = self._forms[start:cut]
        uses = {u.id: u for m in region for u in m.tool_uses}
        request = summary_request(self._summary, region, start, uses, self.policy)
        for index in range(self._pinned_up_to, cut):
            self._pins.add(index, self._history[index], self._uses_before(index))
        self._pinned_up_to = max(self._pinned_up_to, cut)
        return CompactionJob(start, cut, request, self._pins.render(cut, self.plan))

    def _uses_before(self, index: int) -> dict[str, ToolUseBlock]:
        """The calls a message's tool results answer: those of the message before it."""
        before = self._forms[index - 1] if index > 0 else None
        return {u.id: u for u in before.tool_uses} if before is not None else {}

    def adopt(self, job: CompactionJob, summary: str, seq: int | None) -> None:
        """Use the summary (logged as event ``seq``) for messages before ``job.cut``."""
        self._install(job.cut, summary, job.pinned, seq)

    def restore(self, *, seq: int | None, summary: str, pinned: str, up_to: int) -> None:
        """A resumed session continues from its last logged summary."""
        self._restored = (seq, summary, pinned, up_to)

    def _apply_restored(self) -> None:
        assert self._restored is not None
        seq, summary, pinned, up_to = self._restored
        self._restored = None
        forms = self._forms
        if not 0 < up_to < len(forms):
            return  # not this history's summary: project the history whole
        if forms[up_to].role == "assistant" or _is_prompt(forms[up_to]):
            self._install(up_to, summary, pinned, seq)

    def _install(self, cut: int, summary: str, pinned: str, seq: int | None) -> None:
        head = head_message(summary, pinned, cut)
        self._cut = cut
        self._summary, self._summary_seq = summary, seq
        self._frontier = max(self._frontier, cut)
        if self._head_end is not None and self._head_end <= cut:
            self._head_end = None  # summarised: the next step keeps a new head
        self._tail_start = max(self._tail_start, cut)
        self._view = [head, *self._forms[cut:]]
        self._view_tokens = message_tokens(head) + sum(self._form_tokens[cut:])
        self._old_bulky = sum(self._bulky[self._frontier : self._tail_start])
        start = cut if self._head_end is None else self._head_end
        self._elided = sum(1 for i in range(start, self._frontier) if self._bulky[i])

    # --- calibration ----------------------------------------------------------

    def calibrate(self, usage: Usage) -> None:
        """Learn from the input tokens billed for the last projection."""
        self.calibration.observe(self._last_raw, usage)

    def overflowed(self, error_text: str) -> None:
        """The API refused the last projection as too long: estimate higher from now on,
        and where the error names a smaller window than the one assumed, use that."""
        self.calibration.overflowed(self._last_raw, error_text, self.policy.window)
        named = window_in(error_text)
        if named is not None and 1024 <= named < self.policy.window:
            source = f"named by the model server's too-long error (was {self.policy.window:,})"
            self.policy = replace(self.policy, window=named, window_source=source)


def _is_prompt(message: Message) -> bool:
    return message.role == "user" and not any(
        isinstance(b, ToolResultBlock) for b in message.content
    )
