"""agentls on the peers' exact harness (../shared/bench/peers/common.py): the same
workload, warm-up, timing and JSON line, so its row sits in their table.

    python tests/bench/agentls_peer_format.py --n 50
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

PEERS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "peers"
sys.path.insert(0, str(PEERS))
import common  # type: ignore[import-not-found]  # noqa: E402

from agentls import __version__  # noqa: E402
from agentls.contracts.tooling import Risk, ToolOutput  # noqa: E402
from agentls.conversation.open_sessions import ConversationManager  # noqa: E402
from agentls.conversation.settings import load_settings  # noqa: E402
from agentls.permissions.approvers import AutoApprover  # noqa: E402
from agentls.providers.scripted import ScriptedProvider  # noqa: E402
from agentls.session.store import SessionStore  # noqa: E402
from agentls.workspace.interface import ToolContext, ToolDefinition  # noqa: E402
from agentls.workspace.local import LocalWorkspace  # noqa: E402


class ReadInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="file to read")


async def read_file(args: ReadInput, ctx: ToolContext) -> ToolOutput:
    return ToolOutput(common.record_tool_call(args.path))


TOOL: ToolDefinition[Any] = ToolDefinition(
    common.TOOL_NAME, common.TOOL_DESCRIPTION, ReadInput, Risk.READ, read_file, "path",
    lambda a: a.path, lambda a: f"read_file {a.path}",
)  # fmt: skip
ROOT = Path(tempfile.mkdtemp(prefix="agentls-bench-"))
# The state dir (outside the workspace, as a person's ~/.local/state is) goes in
# memory where there is a tmpfs: each run creates a session's two files, and on a
# disk that test runs keep filling and emptying, creating a file can cost a
# millisecond of kernel time (ext4 passing over recently freed inodes) instead of
# ~15 us, which would measure the machine's churn rather than the harness.
# AGENTLS_BENCH_STATE_PARENT puts it elsewhere (on disk, to see what the log's writes
# cost there).
_SHM = Path("/dev/shm")
_PARENT = os.environ.get("AGENTLS_BENCH_STATE_PARENT") or (
    str(_SHM) if os.access(_SHM, os.W_OK) else None
)
STATE = Path(tempfile.mkdtemp(prefix="agentls-bench-state-", dir=_PARENT))
atexit.register(shutil.rmtree, STATE, True)
atexit.register(shutil.rmtree, ROOT, True)


def script(n: int) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {"toolCalls": [{"id": f"call_{i}", "name": common.TOOL_NAME,
                        "input": {"path": common.path_for(i)}}],
         "usage": {"input_tokens": 100, "output_tokens": 10}}
        for i in range(n)
    ]  # fmt: skip
    return [
        *turns,
        {"text": common.FINAL_TEXT, "usage": {"input_tokens": 100, "output_tokens": 10}},
    ]


class _Next:
    """The scripted model for the next run (the manager is built once, like the peers' agents)."""

    provider = ScriptedProvider([])


MANAGER = ConversationManager(
    SessionStore(STATE), tools=[TOOL], provider_factory=lambda s: _Next.provider
)


# The same settings every run, as a person's are from one ask to the next (the peers build
# their agent once): maxTurns is above any N the harness runs, not N + something.
SETTINGS = {"model": "scripted:bench", "maxTurns": 1_000_000, "checkpoints": False}


async def run_once(n: int) -> str:
    _Next.provider = ScriptedProvider(script(n))
    settings = load_settings(SETTINGS)  # loaded per run, as a face loads them per session
    conversation = MANAGER.open(LocalWorkspace(ROOT), settings)  # a new session per run
    result = await conversation.ask(common.PROMPT, approver=AutoApprover())
    return result.text


if __name__ == "__main__":
    common.bench_async("agentls (session log on)", f"agentls {__version__}", run_once)
    _ = asyncio  # the loop is asyncio; imported for parity with the peers' scripts
