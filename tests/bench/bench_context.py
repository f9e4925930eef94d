"""The context projection's cost per turn as a session grows to 1,000 turns.

Each turn adds an assistant message (one read_file call) and its 2,048-character
tool result, as in bench_loop; then ``ContextProjector.project`` builds the next
ModelInput, timed alone. Compactions use an instant summary (the model call is
not what is measured here); they are counted, and their own cost is reported
apart. For scale, "full re-count" is what estimating the whole history again
every turn would cost, the work an incremental projector avoids.

    python -m tests.bench.bench_context [--turns 1000] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from dataclasses import dataclass, field

from agentls.context.estimate import message_tokens
from agentls.context.policy import ContextPolicy
from agentls.context.projector import ContextProjector
from agentls.contracts.messages import Message, ToolResultBlock, ToolUseBlock, user_text
from agentls.contracts.model_io import ToolSpec
from agentls.contracts.usage import Usage

_LINE = "def handler_{k:04d}(request):  # fixed fake source line\n"
FILE_CONTENT = "".join(_LINE.format(k=k) for k in range(64))[:2048]
SYSTEM = "You are agentls, a coding agent. " * 20
TOOLS = (
    ToolSpec(
        "read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}
    ),
)
MILESTONES = (10, 100, 250, 500, 1000)
WINDOW = 9  # turns around a milestone whose timings are pooled


@dataclass
class Scenario:
    name: str
    window: int
    rows: dict[int, dict[str, float]] = field(default_factory=dict)
    compactions: int = 0
    compaction_us: list[float] = field(default_factory=list)


def turn_messages(turn: int) -> tuple[Message, Message]:
    use = ToolUseBlock(f"call_{turn}", "read_file", {"path": f"src/module_{turn}.py"})
    return Message("assistant", (use,)), Message("user", (ToolResultBlock(use.id, FILE_CONTENT),))


def run(scenario: Scenario, turns: int) -> None:
    projector = ContextProjector(ContextPolicy(window=scenario.window))
    messages: list[Message] = [user_text("Read the project files one by one, then summarise.")]
    samples: dict[int, list[float]] = {}
    recount: dict[int, list[float]] = {}
    gc.collect()
    for turn in range(1, turns + 1):
        messages.extend(turn_messages(turn))
        t0 = time.perf_counter()
        projection = projector.project(SYSTEM, messages, TOOLS, 8192)
        elapsed = time.perf_counter() - t0
        if projection.wants_compaction:
            t1 = time.perf_counter()
            job = projector.compaction_job()
            assert job is not None
            projector.adopt(job, "Files were read one by one; nothing failed.", turn)
            projection = projector.project(SYSTEM, messages, TOOLS, 8192)
            scenario.compaction_us.append((time.perf_counter() - t1) * 1e6)
            scenario.compactions += 1
        # The provider reports what it billed; here, the estimate itself.
        projector.calibrate(Usage(input_tokens=projection.estimated_tokens))
        for milestone in MILESTONES:
            if milestone - WINDOW < turn <= milestone:
                samples.setdefault(milestone, []).append(elapsed * 1e6)
                t2 = time.perf_counter()
                sum(message_tokens(m) for m in messages)
                recount.setdefault(milestone, []).append((time.perf_counter() - t2) * 1e6)
            if turn == milestone:
                scenario.rows[milestone] = {
                    "us": statistics.median(samples[milestone]),
                    "recount_us": statistics.median(recount[milestone]),
                    "history": len(messages),
                    "projected": len(projection.request.messages),
                    "tokens": projection.estimated_tokens,
                    "compactions": scenario.compactions,
                }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--json", action="store_true", help="one JSON line, for run_all")
    args = parser.parse_args()
    scenarios = [Scenario("200k window", 200_000), Scenario("32k window", 32_000)]
    for scenario in scenarios:
        run(Scenario(scenario.name, scenario.window), 50)  # warm-up
        run(scenario, args.turns)
    if args.json:
        big = scenarios[0].rows
        first, last = min(big), max(big)
        print(json.dumps({"first_turn": first, "last_turn": last, "us_first": big[first]["us"],
                          "us_last": big[last]["us"]}))  # fmt: skip
        return
    print("# context projection per turn (ContextProjector.project, median of 9 turns)\n")
    print("| window | turn | history msgs | projected msgs | est. tokens | compactions "
          "| us/turn | full re-count us |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for scenario in scenarios:
        for turn, row in sorted(scenario.rows.items()):
            print(f"| {scenario.name} | {turn:,} | {row['history']:.0f} | {row['projected']:.0f} "
                  f"| {row['tokens']:,.0f} | {row['compactions']:.0f} | {row['us']:.1f} "
                  f"| {row['recount_us']:.0f} |")  # fmt: skip
    print()
    for scenario in scenarios:
        if scenario.compaction_us:
            median = statistics.median(scenario.compaction_us)
            print(f"{scenario.name}: {scenario.compactions} compactions; preparing and adopting "
                  f"one (the model call aside) takes {median:.0f} us (median)")  # fmt: skip


if __name__ == "__main__":
    main()
