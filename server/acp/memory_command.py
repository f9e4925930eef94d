"""`/memory`: list what the agent remembers here, `/memory add [--user] TEXT`,
`/memory forget ID`; one call onto the core's memory operation (conversation/memory_ops.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp.schema import (
    AgentMessageChunk,
    AvailableCommand,
    AvailableCommandInput,
    TextContentBlock,
    UnstructuredCommandInput,
)

from agentls.conversation.memory_ops import (
    MemoryStoreError,
    UnknownMemory,
    memory_action,
)

MEMORY_COMMAND = AvailableCommand(
    name="memory",
    description="What agentls remembers across sessions: list, add [--user] TEXT, forget ID",
    input=AvailableCommandInput(
        UnstructuredCommandInput(hint="(list) | add [--user] TEXT | forget ID")
    ),
)


async def run_memory(root: Path, state_dir: Path, argument: str) -> str:
    verb, _, rest = argument.strip().partition(" ")
    rest = rest.strip()
    try:
        if verb in ("", "list"):
            outcome = await asyncio.to_thread(memory_action, root, state_dir, "list")
        elif verb == "add":
            user = rest.startswith("--user ")
            text = rest.removeprefix("--user ").strip()
            outcome = await asyncio.to_thread(
                memory_action, root, state_dir, "add",
                text=text, scope="user" if user else "project",
            )  # fmt: skip
        elif verb == "forget":
            outcome = await asyncio.to_thread(
                memory_action, root, state_dir, "forget", memory_id=rest
            )
        else:
            return f"/memory takes list, add TEXT or forget ID, not {verb!r}"
    except (ValueError, UnknownMemory, MemoryStoreError) as exc:
        return f"memory unchanged: {exc}"
    lines = [*outcome.listing.warnings]
    if outcome.changed is not None:
        done = "remembered" if verb == "add" else "forgot"
        lines.append(f"{done} {outcome.changed.id}")
    lines.extend(outcome.listing.lines())
    return "\n".join(lines)


def told_guidance(lines: list[str]) -> AgentMessageChunk | None:
    """The run's first message, when it was given instruction files or memories."""
    if not lines:
        return None
    text = "".join(f"[{line}]\n" for line in lines) + "\n"
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )
