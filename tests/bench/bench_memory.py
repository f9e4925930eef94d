"""Memory: 10 concurrent sessions of 200 turns each in one process (the language
server's situation), each turn a 2 KB tool result.

    python -m tests.bench.bench_memory
"""

from __future__ import annotations

import asyncio
import gc
import resource
import tempfile
import time
from pathlib import Path

from agentls.contracts.tooling import Risk, ToolOutput
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.permissions.approvers import AutoApprover
from agentls.providers.scripted import ScriptedProvider
from agentls.session.store import SessionStore
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.local import LocalWorkspace
from tests.bench.bench_loop import FILE_CONTENT, FINAL_TEXT, ReadInput, script

SESSIONS, TURNS = 10, 200


def fresh_read_tool(counter: list[int]) -> ToolDefinition[ReadInput]:
    """Each result a new 2 KB string, as real file contents are."""

    async def run(args: ReadInput, ctx: ToolContext) -> ToolOutput:
        counter[0] += 1
        return ToolOutput(f"{counter[0]:08d}" + FILE_CONTENT[8:])

    return ToolDefinition(
        "read_file", "Read a file.", ReadInput, Risk.READ, run, "path",
        lambda a: a.path, lambda a: f"read_file {a.path}",
    )  # fmt: skip


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main_async() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        counter = [0]
        providers = iter([ScriptedProvider(script(TURNS)) for _ in range(SESSIONS)])
        manager = ConversationManager(
            SessionStore(root / "state"),
            tools=[fresh_read_tool(counter)],
            provider_factory=lambda settings: next(providers),
        )
        settings = load_settings({"model": "scripted:bench", "maxTurns": TURNS + 5})
        gc.collect()
        before = rss_mb()
        conversations = [manager.open(LocalWorkspace(root), settings) for _ in range(SESSIONS)]
        started = time.perf_counter()
        results = await asyncio.gather(
            *(c.ask("read everything", approver=AutoApprover()) for c in conversations)
        )
        elapsed = time.perf_counter() - started
        peak = rss_mb()
        manager.close()
    assert all(r.text == FINAL_TEXT for r in results) and counter[0] == SESSIONS * TURNS
    print(f"| {SESSIONS} sessions x {TURNS} turns at once | value |")
    print("|---|---|")
    print(f"| resident memory before | {before:.0f} MB |")
    print(f"| peak resident memory | {peak:.0f} MB |")
    growth = (peak - before) / SESSIONS
    print(f"| growth per session (200 turns, 400 KB of results) | {growth:.1f} MB |")
    print(f"| wall time for all {SESSIONS * TURNS:,} turns | {elapsed:.2f} s |")


if __name__ == "__main__":
    asyncio.run(main_async())
