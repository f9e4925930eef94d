"""What the suites share: a scripted model written to a file, and a bounded wait for an
observable condition (polled, with a deadline; never a fixed sleep)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def script(folder: Path, turns: list[dict[str, Any]], name: str = "script.json") -> str:
    """The scripted model playing TURNS, as the model option names it (`scripted:PATH`)."""
    path = folder / name
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


async def until(
    check: Callable[[], object], what: str = "the condition", timeout: float = 60.0
) -> None:
    """Return once CHECK holds; fail naming WHAT when it has not within TIMEOUT seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
