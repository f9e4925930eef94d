"""Harness overhead per turn: the scripted model and an instant tool, log on.

Same workload as ../shared/bench/peers: on model calls 0..N-1 the model asks
for one read_file(path=src/module_<i>.py); the tool returns the same 2048-byte
string; call N returns the final text. us/turn = wall time / (N+1).

    python -m tests.bench.bench_loop --n 50 --reps 5
    python -m tests.bench.bench_loop --n 500 --profile 25   # where a turn's time goes
    python -m tests.bench.bench_loop --n 500 --ablate       # what each part costs, taken away
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import pstats
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import Risk, ToolOutput
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.permissions.approvers import AutoApprover
from agentls.providers.scripted import ScriptedProvider
from agentls.session.store import SessionStore
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.local import LocalWorkspace

_LINE = "def handler_{k:04d}(request):  # fixed fake source line\n"
FILE_CONTENT = "".join(_LINE.format(k=k) for k in range(64))[:2048]
FINAL_TEXT = "All files read; nothing else to do."


class ReadInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="file to read")


def instant_read_tool(counter: list[int]) -> ToolDefinition[Any]:
    async def run(args: ReadInput, ctx: ToolContext) -> ToolOutput:
        counter[0] += 1
        return ToolOutput(FILE_CONTENT)

    return ToolDefinition(
        "read_file", "Read a file.", ReadInput, Risk.READ, run, "path",
        lambda a: a.path, lambda a: f"read_file {a.path}",
    )  # fmt: skip


def script(n: int) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {"toolCalls": [{"id": f"call_{i}", "name": "read_file",
                        "input": {"path": f"src/module_{i}.py"}}],
         "usage": {"input_tokens": 100, "output_tokens": 10}}
        for i in range(n)
    ]  # fmt: skip
    turns.append({"text": FINAL_TEXT, "usage": {"input_tokens": 100, "output_tokens": 10}})
    return turns


async def one_run(
    n: int, root: Path, profiler: cProfile.Profile | None = None
) -> tuple[float, float]:
    counter = [0]
    provider = ScriptedProvider(script(n))
    manager = ConversationManager(
        SessionStore(root.with_name(root.name + "-state")), tools=[instant_read_tool(counter)],
        provider_factory=lambda settings: provider,
    )  # fmt: skip
    settings = load_settings({"model": "scripted:bench", "maxTurns": 1_000_000})
    conversation = manager.open(LocalWorkspace(root), settings)
    gc.collect()
    if profiler is not None:
        profiler.enable()
    c0, t0 = time.process_time(), time.perf_counter()
    result = await conversation.ask("Read the project files one by one, then summarise.",
                                    approver=AutoApprover())  # fmt: skip
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if profiler is not None:
        profiler.disable()
    manager.close()
    if counter[0] != n or result.text != FINAL_TEXT:
        raise SystemExit(f"workload check failed: {counter[0]} calls, {result.text!r}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--profile", type=int, metavar="ROWS", default=0,
                        help="cProfile the runs instead; print the top ROWS")  # fmt: skip
    parser.add_argument("--ablate", action="store_true",
                        help="measure again with parts taken away, one after another")  # fmt: skip
    args = parser.parse_args()
    if args.profile:
        profile(args.n, args.reps, args.profile)
        return
    if args.ablate:
        ablate(args.n, max(args.reps, 5))
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        asyncio.run(one_run(5, root))  # warm-up
        walls, cpus = [], []
        for _ in range(args.reps):
            wall, cpu = asyncio.run(one_run(args.n, root))
            walls.append(wall)
            cpus.append(cpu)
    turns = args.n + 1
    print(json.dumps({
        "n": args.n,
        "us_per_turn": statistics.median(walls) / turns * 1e6,
        "cpu_us_per_turn": statistics.median(cpus) / turns * 1e6,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "python": sys.version.split()[0],
    }))  # fmt: skip


def cpu_per_turn(n: int, reps: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        asyncio.run(one_run(5, root))  # warm-up
        cpus = [asyncio.run(one_run(n, root))[1] for _ in range(reps)]
    return statistics.median(cpus) / (n + 1) * 1e6


def ablate(n: int, reps: int) -> None:
    """Where a turn's time goes, without a profiler's distortion: the same runs with one
    part after another replaced by nothing (in this process only; a bench, not a mode)."""
    from agentls.loop.hooks import ChainedHooks
    from agentls.runtime import pipeline as runtime
    from agentls.runtime import shaping
    from agentls.session.log import SessionLog

    def stamp_only(log: SessionLog, event: Any) -> bytes:
        event.seq = log._seq
        log._seq += 1
        return b""

    async def run_without_timeout(
        self: runtime.ToolRuntime, intent: Any, tool: Any, args: Any, limit: int
    ) -> Any:
        output = await tool.run(args, self.context)
        return shaping.ok(intent, output.text, limit, dict(output.meta))

    async def no_hook_before(self: ChainedHooks, *args: Any) -> None:
        return None

    async def no_hook_after(self: ChainedHooks, *args: Any) -> list[str]:
        return []

    def no_hooks() -> None:
        ChainedHooks.before_act = no_hook_before  # type: ignore[method-assign]
        ChainedHooks.after_act = no_hook_after  # type: ignore[method-assign]

    steps: list[tuple[str, Any]] = [
        ("as shipped", None),
        ("without the session log's writes (its lines still encoded)",
         lambda: setattr(SessionLog, "_write", lambda log, data: None)),
        ("... nor encoding them", lambda: setattr(SessionLog, "_stamp_and_encode", stamp_only)),
        ("... nor masking secrets in tool output",
         lambda: setattr(shaping, "mask_secrets", lambda text: (text, 0))),
        ("... nor the per-call timeout",
         lambda: setattr(runtime.ToolRuntime, "_run", run_without_timeout)),
        ("... nor the turn hooks (checkpoints, problems, outside changes)", no_hooks),
    ]  # fmt: skip
    print(f"| N = {n}, {reps} runs | CPU us/turn |")
    print("|---|---|")
    for label, take_away in steps:
        if take_away is not None:
            take_away()
        print(f"| {label} | {cpu_per_turn(n, reps):.1f} |", flush=True)


def profile(n: int, reps: int, rows: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        asyncio.run(one_run(5, root))  # warm-up
        profiler = cProfile.Profile()
        for _ in range(reps):
            asyncio.run(one_run(n, root, profiler))
    stats = pstats.Stats(profiler, stream=sys.stdout)
    print(f"{reps} runs of {n + 1} turns; per turn = time / {reps * (n + 1)}")
    stats.sort_stats("tottime").print_stats(rows)


if __name__ == "__main__":
    main()
