"""ContextProjector on its own: elision, cuts, fallbacks, calibration, incremental work."""

from __future__ import annotations

import pytest

from agentls.context import projector as projector_module
from agentls.context.estimate import Calibration
from agentls.context.policy import ContextPolicy
from agentls.context.projector import ContextProjector, Projection
from agentls.contracts.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agentls.contracts.model_io import ToolSpec
from agentls.contracts.usage import Usage

from .helpers import assert_pairs_intact

TOOLS = (ToolSpec("read_file", "Read a file.", {"type": "object"}),)
BIG = "line of a big file\n" * 200  # 3,800 characters: bulky
SMALL = "ok"


def turn(n: int, content: str = BIG, calls: int = 1) -> list[Message]:
    uses = tuple(
        ToolUseBlock(f"c{n}_{k}", "read_file", {"path": f"f{n}_{k}.py"}) for k in range(calls)
    )
    results = tuple(ToolResultBlock(u.id, content) for u in uses)
    return [Message("assistant", (TextBlock(f"turn {n}"), *uses)), Message("user", results)]


def session(turns: int, **kw: object) -> list[Message]:
    messages = [user_text("Read every file.")]
    for n in range(turns):
        messages += turn(n, **kw)  # type: ignore[arg-type]
    return messages


def project(p: ContextProjector, messages: list[Message], **kw: bool) -> Projection:
    return p.project("system", messages, TOOLS, 1000, **kw)


def elided(message: Message) -> bool:
    return any(
        isinstance(b, ToolResultBlock) and b.content.startswith("[Elided") for b in message.content
    )


def test_a_short_session_is_projected_whole_and_logs_nothing() -> None:
    p = ContextProjector(ContextPolicy(window=200_000))
    messages = session(5)
    first = project(p, messages)
    assert list(first.request.messages) == messages
    assert first.changed is None and not first.wants_compaction
    messages += turn(5)
    second = project(p, messages)
    assert list(second.request.messages) == messages and second.changed is None


def test_old_bulky_results_are_elided_in_steps_keeping_the_oldest() -> None:
    # ~950 tokens a result; old ones may hold 3,000 tokens before a step elides them.
    p = ContextProjector(ContextPolicy(window=200_000, verbatim_turns=2, tool_result_budget=3000))
    messages = session(1)
    shapes = []
    for n in range(1, 12):
        messages += turn(n)
        shapes.append(project(p, messages).changed)
    view = list(p.project("system", messages, TOOLS, 1000).request.messages)
    results = [m for m in view if any(isinstance(b, ToolResultBlock) for b in m.content)]
    flags = [elided(m) for m in results]
    # Steps elide every old result at once, so most turns change nothing.
    assert sum(s is not None for s in shapes) == 2
    # The first step kept the oldest results (up to half the request) as they are; after
    # them one run is elided, never inside the verbatim turns (the last two).
    first = flags.index(True)
    assert first >= 1 and not any(flags[:first]) and not any(flags[-2:])
    assert flags[first:] == sorted(flags[first:], reverse=True)
    assert shapes[-3] is not None and shapes[-3].elided_from == 2 * first + 1
    stub = next(b for b in results[first].content if isinstance(b, ToolResultBlock))
    assert stub.tool_use_id == f"c{first}_0"
    assert f'read_file {{"path":"f{first}_0.py"}} returned 3,800 characters' in stub.content
    assert (
        "beginning 'line of a big file'" in stub.content and "Call the tool again" in stub.content
    )


def test_the_prefix_stays_the_same_between_batches() -> None:
    p = ContextProjector(ContextPolicy(window=200_000, verbatim_turns=2, tool_result_budget=3000))
    messages = session(1)
    before: list[Message] = []
    stable = 1
    for n in range(1, 12):
        messages += turn(n)
        projection = project(p, messages)
        now = list(projection.request.messages)
        if projection.changed is None and before:
            assert now[: len(before)] == before
        elif before:  # a step: still at least half the request unchanged
            same = next(i for i, (x, y) in enumerate(zip(now, before, strict=False)) if x != y)
            assert same >= len(now) // 2
            assert same >= stable  # the part marked stable (a cache breakpoint) held
        stable = projection.request.stable_prefix
        assert 1 <= stable <= len(now)
        before = now


def test_cuts_keep_every_tool_use_with_its_result_and_the_prompt_with_its_turn() -> None:
    p = ContextProjector(ContextPolicy(window=8000, verbatim_turns=2, tool_result_budget=0))
    messages = session(0)
    compactions = 0
    for n in range(40):
        messages += turn(n, SMALL * 400, calls=3)
        if n % 10 == 9:
            messages += [
                Message("assistant", (TextBlock("Done for now."),)),
                user_text(f"More {n}"),
            ]
        projection = project(p, messages)
        if projection.wants_compaction:
            job = p.compaction_job()
            assert job is not None and job.cut > job.start
            cut_at = messages[job.cut]
            assert cut_at.role == "assistant" or not any(
                isinstance(b, ToolResultBlock) for b in cut_at.content
            )
            p.adopt(job, f"summary {compactions}", compactions)
            compactions += 1
            projection = project(p, messages, allow_compaction=False)
        assert_pairs_intact(projection.request.messages)
        assert projection.estimated_tokens <= 8000
    assert compactions >= 3


def test_with_compaction_off_the_bulk_of_all_but_the_latest_turn_goes_first() -> None:
    policy = ContextPolicy(
        window=4096, verbatim_turns=4, tool_result_budget=100_000, compaction=False
    )
    p = ContextProjector(policy)
    messages = session(6)
    projection = project(p, messages)
    assert not projection.wants_compaction
    assert projection.estimated_tokens <= policy.hard_limit
    view = list(projection.request.messages)
    assert elided(view[2]) and not elided(view[-1])
    assert_pairs_intact(view)


def test_calibration_learns_from_billed_input_and_from_overflow_errors() -> None:
    p = ContextProjector(ContextPolicy(window=200_000))
    messages = session(3, content=SMALL)
    raw = project(p, messages).estimated_tokens
    p.calibrate(Usage(input_tokens=raw, cache_read_tokens=raw))  # the model counts twice as many
    assert project(p, messages).estimated_tokens == pytest.approx(2 * raw, rel=0.01)
    p.calibrate(Usage(input_tokens=1))  # an odd report moves it only so far
    assert p.calibration.factor >= (2 + 0.5) / 2
    calibration = Calibration()
    calibration.overflowed(1000, "prompt is too long: 210,000 tokens > 200,000 maximum", 200_000)
    assert calibration.factor == 4.0  # capped
    calibration = Calibration()
    calibration.overflowed(100_000, "the conversation is too long (413: too large)", 200_000)
    assert calibration.factor == pytest.approx(2.1)


@pytest.mark.parametrize(
    ("error", "prompt", "window"),
    [
        ("prompt is too long: 210,000 tokens > 200,000 maximum", 210_000, 200_000),
        ("This model's maximum context length is 128000 tokens. However, your messages "
         "resulted in 130500 tokens.", 130_500, 128_000),
        ("the request exceeds the available context size (n_prompt_tokens 190000, n_ctx 8192)",
         190_000, 8192),
    ],
)  # fmt: skip
def test_a_too_long_error_sizes_the_estimate_and_names_the_window(
    error: str, prompt: int, window: int
) -> None:
    calibration = Calibration()
    calibration.overflowed(100_000, error, 400_000)
    assert calibration.factor == pytest.approx(max(1.0, min(prompt / 100_000, 4.0)))
    p = ContextProjector(ContextPolicy(window=400_000))
    project(p, session(3, content=SMALL))
    p.overflowed(error)
    assert p.policy.window == window and "too-long error" in p.policy.window_source
    p.overflowed("prompt is too long: 5 tokens > 1,000,000 maximum")  # larger: not adopted
    assert p.policy.window == window


def test_each_message_is_measured_once_however_long_the_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    measured: list[int] = []
    real = projector_module.measure

    def counting(message: Message, bulky: int) -> tuple[int, int]:
        measured.append(1)
        return real(message, bulky)

    monkeypatch.setattr(projector_module, "measure", counting)
    p = ContextProjector(ContextPolicy(window=200_000))
    messages = session(0)
    for n in range(300):
        messages += turn(n, SMALL)
        project(p, messages)
    assert len(measured) == len(messages)


def test_a_different_history_starts_over_and_a_stale_summary_is_ignored() -> None:
    p = ContextProjector(ContextPolicy(window=200_000))
    project(p, session(4))
    other = session(2)
    assert list(project(p, other).request.messages) == other
    fresh = ContextProjector(ContextPolicy(window=200_000))
    fresh.restore(seq=7, summary="from another history", pinned="", up_to=99)
    assert list(project(fresh, other).request.messages) == other
