"""Cache-friendly requests: a long scripted session (one 2 KB read per turn) through
the real Anthropic provider against the fake server. For every request, the share of
its input (tools, system, messages, cache marks left out) that is a byte-identical
prefix of the request before it: what a provider's prompt cache can serve.

    python -m tests.bench.bench_cache [--turns 120] [--json]

Targets: at least 95% on average with the default window, 90% with contextWindow
30,000; no request under 50% except right after a compaction.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from agentls.context.summary import SUMMARY_SYSTEM
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.permissions.approvers import AutoApprover
from agentls.providers.anthropic import AnthropicProvider
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace
from tests.bench import summary
from tests.fakes.anthropic_replies import Reply, turn
from tests.fakes.anthropic_replies import plan as reply_plan
from tests.fakes.anthropic_server import _error_body
from tests.fakes.http_fake import FakeServer

_LINE = "def handler_{k:04d}(request):  # fixed fake source line\n"
MODEL = "claude-sonnet-4-5"
# Prices relative to uncached input: cache reads 0.1x, cache writes 1.25x.
READ_PRICE, WRITE_PRICE = 0.1, 1.25


def unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [unmarked(v) for v in value]
    return value


def input_bytes(body: dict[str, Any]) -> bytes:
    """The cacheable input in the provider's cache order: tools, system, messages."""
    parts = [body.get("tools", []), body.get("system", ""), body.get("messages", [])]
    return json.dumps(unmarked(parts), separators=(",", ":")).encode()


def shared_prefix(a: bytes, b: bytes) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # binary search on equal prefixes: fast on long requests
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def is_summary_call(body: dict[str, Any]) -> bool:
    system = body.get("system", "")
    text = system if isinstance(system, str) else json.dumps(system)
    return SUMMARY_SYSTEM[:60] in text


async def session(turns: int, window: int | None) -> list[tuple[dict[str, Any], bool]]:
    """Each main request of the session and whether a compaction came just before it."""
    asked = {"turn": 0}

    def plan(reply: Reply, body: Any, number: int) -> Any:
        usage = {"input_tokens": len(input_bytes(body)) // 4, "output_tokens": 20}
        if is_summary_call(body):
            reply = turn("Summary: the agent read the project's files one by one.", usage=usage)
        elif asked["turn"] < turns:
            asked["turn"] += 1
            path = f"src/module_{asked['turn']:03d}.py"
            reply = turn(tool_calls=[(f"toolu_{asked['turn']}", "read_file", {"path": path})],
                         usage=usage)  # fmt: skip
        else:
            reply = turn("Read them all.", usage=usage)
        return reply_plan(reply, body, number)

    fake: FakeServer[Reply] = FakeServer(
        [turn("unused")] * (turns * 3), route="/v1/messages", plan=plan, error_body=_error_body
    )
    with tempfile.TemporaryDirectory() as tmp, fake:
        root = Path(tmp) / "ws"
        (root / "src").mkdir(parents=True)
        content = "".join(_LINE.format(k=k) for k in range(64))[:2048]
        for index in range(1, turns + 1):
            (root / "src" / f"module_{index:03d}.py").write_text(content)
        provider = AnthropicProvider(MODEL, api_key="k", base_url=fake.base_url)
        manager = ConversationManager(SessionStore(Path(tmp) / "state"),
                                      provider_factory=lambda s: provider)  # fmt: skip
        settings: dict[str, Any] = {"model": f"anthropic:{MODEL}", "maxTurns": turns + 5,
                                    "checkpoints": False}  # fmt: skip
        if window is not None:
            settings["contextWindow"] = window
        conversation = manager.open(LocalWorkspace(root), load_settings(settings))
        await conversation.ask("Read the project files one by one.", approver=AutoApprover())
        manager.close()
        requests, after_summary = [], False
        for request in fake.requests:
            if is_summary_call(request.body):
                after_summary = True
                continue
            requests.append((request.body, after_summary))
            after_summary = False
        return requests


def measure(turns: int, window: int | None) -> dict[str, Any]:
    requests = asyncio.run(session(turns, window))
    shares, low, compactions, billed_plain, billed_cached = [], 0, 0, 0.0, 0.0
    previous = b""
    for body, after_summary in requests:
        data = input_bytes(body)
        shared = shared_prefix(previous, data)
        previous = data
        billed_plain += len(data) / 4
        billed_cached += (shared * READ_PRICE + (len(data) - shared) * WRITE_PRICE) / 4
        if len(shares) or shared:
            shares.append(shared / len(data))
        compactions += after_summary
        if shares and shares[-1] < 0.5 and not after_summary:
            low += 1
    shares = shares[1:] if shares else shares
    return {
        "window": window, "requests": len(requests), "compactions": compactions,
        "average_share": sum(shares) / max(1, len(shares)), "under_half": low,
        "min_share": min(shares, default=0.0),
        "input_tokens": billed_plain, "cached_equivalent": billed_cached,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=120)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(args.turns, None), measure(args.turns, 30_000)]
    summary.record(
        "cache", default_share=rows[0]["average_share"], default_under_half=rows[0]["under_half"],
        small_share=rows[1]["average_share"], small_under_half=rows[1]["under_half"],
    )  # fmt: skip
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{args.turns} read turns of 2 KB, real Anthropic provider, fake server:\n")
    print(
        "| window | requests | compactions | cached prefix, average | lowest | under 50% "
        "(not after a compaction) | input tokens | billed as if uncached, with caching |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        name = "default" if row["window"] is None else f"{row['window']:,}"
        print(
            f"| {name} | {row['requests']} | {row['compactions']} "
            f"| {row['average_share']:.1%} | {row['min_share']:.1%} | {row['under_half']} "
            f"| {row['input_tokens']:,.0f} | {row['cached_equivalent']:,.0f} "
            f"({row['cached_equivalent'] / row['input_tokens']:.0%}) |"
        )
    print("\nTargets: average at least 95% (default window), 90% (30,000); none under 50% "
          "except right after a compaction. Tokens estimated at 4 bytes each; cache reads "
          f"priced {READ_PRICE}x and writes {WRITE_PRICE}x uncached input.")  # fmt: skip


if __name__ == "__main__":
    main()
