"""What a recorded request says, read the way each API reads it.

A request is cut into pieces in the order the API reads them (Anthropic: tools,
system, messages; chat completions: tools, messages; Responses: tools,
instructions, input), each piece serialized compactly without its
``cache_control`` marker (a marker tells the API where to cache, it is not part
of what is cached). The pieces joined are the bytes a prefix cache compares:
the share of a request that repeats the one before it byte for byte, and the
bytes of the earlier request that the later one rewrote instead of extending.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

BYTES_PER_TOKEN = 4  # as agentls's own estimate; a rough guide, not a tokenizer


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


def pieces(api: str, body: dict[str, Any]) -> list[tuple[str, bytes]]:
    """(where, bytes) per piece, in the order the API reads them."""
    out: list[tuple[str, bytes]] = [
        (f"tools[{i}]", _dump(_unmarked(t))) for i, t in enumerate(body.get("tools") or [])
    ]
    if api == "anthropic":
        for i, block in enumerate(_blocks(body.get("system") or [])):
            out.append((f"system[{i}]", _dump(_unmarked(block))))
        for m, message in enumerate(body.get("messages") or []):
            out.append((f"messages[{m}].role", _dump(message.get("role"))))
            for b, block in enumerate(_blocks(message.get("content"))):
                out.append((f"messages[{m}][{b}]", _dump(_unmarked(block))))
    elif api == "chat":
        for m, message in enumerate(body.get("messages") or []):
            out.append((f"messages[{m}]", _dump(_unmarked(message))))
    else:  # responses
        if body.get("instructions"):
            out.append(("instructions", _dump(body["instructions"])))
        for i, item in enumerate(body.get("input") or []):
            out.append((f"input[{i}]", _dump(item)))
    return out


def breakpoints(api: str, body: dict[str, Any]) -> list[str]:
    """Where the request asks the API to cache (Anthropic's ``cache_control`` markers)."""
    if api != "anthropic":
        return []
    found: list[str] = []
    for i, tool in enumerate(body.get("tools") or []):
        if "cache_control" in tool:
            found.append(f"tools[{i}]")
    for i, block in enumerate(_blocks(body.get("system") or [])):
        if isinstance(block, dict) and "cache_control" in block:
            found.append(f"system[{i}]")
    messages = body.get("messages") or []
    for m, message in enumerate(messages):
        for block in _blocks(message.get("content")):
            if isinstance(block, dict) and "cache_control" in block:
                found.append(f"messages[{m - len(messages)}]")  # counted from the end
    return found


def _common_prefix(a: bytes, b: bytes) -> int:
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return limit
    low, high = 0, limit  # a[:low] == b[:low] holds; a[:high] == b[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low


@dataclass(frozen=True)
class Conversation:
    """The requests of one run, as the API reads them."""

    api: str
    bodies: list[dict[str, Any]]
    sizes: list[int]  # bytes on the wire (Content-Length)

    @property
    def streams(self) -> list[bytes]:
        return [b"".join(p for _, p in pieces(self.api, body)) for body in self.bodies]

    def shared_prefixes(self) -> list[int]:
        """Per request, the bytes at its start that repeat the request before it."""
        streams = self.streams
        return [0] + [_common_prefix(a, b) for a, b in itertools.pairwise(streams)]

    def prefix_shares(self) -> list[float]:
        """Per request after the first: its share that repeats the one before byte for byte."""
        streams = self.streams
        shared = self.shared_prefixes()
        return [shared[k] / len(streams[k]) for k in range(1, len(streams)) if streams[k]]

    def rewritten(self) -> list[int]:
        """Per request after the first: bytes of the request before it not kept as its prefix."""
        streams = self.streams
        shared = self.shared_prefixes()
        return [len(streams[k - 1]) - shared[k] for k in range(1, len(streams))]

    def tools(self) -> tuple[int, int]:
        tools = self.bodies[0].get("tools") or []
        return len(tools), len(_dump(tools))

    def cost(self, price: dict[str, float], *, explicit_cache: bool) -> tuple[float, float]:
        """USD for the run's input: all uncached, and with the shared prefixes read from a
        cache (the rest written to it where the API caches only on request)."""
        streams, shared = self.streams, self.shared_prefixes()
        per = 1_000_000 * BYTES_PER_TOKEN
        uncached = sum(len(s) for s in streams) * price["input"] / per
        fresh_price = price["cacheWrite"] if explicit_cache else price["input"]
        cached = (
            sum(
                shared[k] * price["cacheRead"] + (len(streams[k]) - shared[k]) * fresh_price
                for k in range(len(streams))
            )
            / per
        )
        return uncached, cached


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
