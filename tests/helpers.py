"""What the suites share: a scripted model written to a file, a bounded wait for an
observable condition (polled, with a deadline; never a fixed sleep), a free port, what the
fake Anthropic API received (the tools offered, a tool's result, the system prompt), an LSP
range, a percentile, hook settings and scripts, and small images."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.anthropic_server import FakeAnthropic


def script(folder: Path, turns: list[dict[str, Any]], name: str = "script.json") -> str:
    """The scripted model playing TURNS, as the model option names it (`scripted:PATH`)."""
    return write_script(folder / name, turns)


def write_file(path: Path, text: str | bytes) -> Path:
    """PATH holding TEXT, its folders made as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def write_script(path: Path, turns: list[dict[str, Any]]) -> str:
    """The scripted model playing TURNS from the file PATH (`scripted:PATH`)."""
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


def wait_until(check: Callable[[], object], timeout: float = 30.0, what: str = "") -> None:
    """`until` for a test that is not a coroutine: block until CHECK holds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.02)


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on (for a server a test starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def tool_names(fake: FakeAnthropic, request: int) -> list[str]:
    """The names of the tools the model was offered in FAKE's REQUEST-th request."""
    return [t["name"] for t in fake.requests[request].body.get("tools", [])]


def tool_result_text(fake: FakeAnthropic, request: int) -> str:
    """The text of the tool result FAKE's REQUEST-th request ends with."""
    last = fake.requests[request].body["messages"][-1]
    block = next(b for b in last["content"] if b["type"] == "tool_result")
    content = block["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def system_text(body: dict[str, Any]) -> str:
    """The system prompt of an Anthropic request BODY, as one text."""
    system = body["system"]
    return system if isinstance(system, str) else "".join(b["text"] for b in system)


def lsp_range(line: int, start: int, end: int) -> dict[str, Any]:
    """An LSP range within LINE, as JSON."""
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def percentile(values: list[float], q: float) -> float:
    """The Q-quantile of VALUES (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def hooks(event: str, command: str, matcher: str = "", **entry: Any) -> dict[str, Any]:
    """The `hooks` settings running COMMAND on EVENT for the tools MATCHER names; ENTRY adds
    to the command's entry (`timeout`, ...)."""
    return {event: [{"matcher": matcher,
                     "hooks": [{"type": "command", "command": command, **entry}]}]}  # fmt: skip


def hook_script(folder: Path, name: str, body: str, shebang: str = "#!/bin/sh") -> str:
    """An executable hook FOLDER/NAME running BODY; its path, for a hook's command."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{shebang}\n{body}")
    path.chmod(0o755)
    return str(path)


def png(width: int = 2, height: int = 3, shade: int = 0) -> bytes:
    """A real PNG of WIDTH x HEIGHT grey pixels (SHADE makes two of them differ)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    rows = b"".join(b"\x00" + bytes([shade % 256]) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def gif(frames: int = 1, width: int = 1, height: int = 1) -> bytes:
    """A real GIF of FRAMES one-colour frames (two or more: an animated GIF)."""
    import struct

    head = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00\x00\x00" * 2
    frame = (
        b"\x21\xf9\x04\x00\x0a\x00\x00\x00"  # graphic control: 0.1 s
        + b"\x2c"
        + struct.pack("<HHHHB", 0, 0, width, height, 0)
        + b"\x02\x02\x44\x01\x00"  # LZW min code size 2, one sub-block of data
    )
    return head + frame * frames + b"\x3b"
