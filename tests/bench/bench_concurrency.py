"""Editor requests answered while 20 sessions run in one `agentls serve`, beside a bare
pygls server answering the same requests on the same machine in the same run.

The client sends `textDocument/codeAction` back to back (each as soon as the last is
answered) until the sessions end; the bare server gets as many. Answer times are
measured at the client.

    python -m tests.bench.bench_concurrency [--sessions 20]

Target: agentls's p99 under 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.bench import summary
from tests.e2e.lsp.editor import start_editor
from tests.helpers import percentile, write_script
from tests.reliability.test_concurrent_sessions import script

HERE = Path(__file__).resolve().parent


def action_params(uri: str) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[]),
    )


async def timed(client: LanguageClient, uri: str) -> float:
    started = time.perf_counter()
    await asyncio.wait_for(client.text_document_code_action_async(action_params(uri)), 30)
    return (time.perf_counter() - started) * 1000


async def agentls_under_load(root: Path, state: Path, sessions: int) -> list[float]:
    model = write_script(root.parent / "script.json", script())
    editor = await start_editor(
        root, {"AGENTLS_STATE_DIR": str(state)},
        init_options={"model": model, "mode": "bypass", "maxTurns": 100},
    )  # fmt: skip
    uri = editor.open("b.py")
    times: list[float] = []
    try:
        started = [await editor.ask(f"session {n}: go") for n in range(sessions)]
        runs = {s["runId"] for s in started}
        while not runs <= {e["runId"] for e in editor.events if e["kind"] == "run_finished"}:
            times.append(await timed(editor.client, uri))
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()
    return times


async def bare(root: Path, count: int) -> list[float]:
    config = ClientServerConfig(
        server_command=[sys.executable, str(HERE / "bare_pygls_server.py"), "--code-actions"],
        server_env=dict(os.environ),
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    await client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=root.as_uri())
    )
    uri = (root / "b.py").as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text="x = 1\n")
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    try:
        return [await timed(client, uri) for _ in range(count)]
    finally:
        await client.shutdown_session()
        await client.stop()


async def measure(sessions: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        (root / "a.py").write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(200)))
        (root / "b.py").write_text("x = 1\n")
        ours = await agentls_under_load(root, Path(tmp) / "state", sessions)
        theirs = await bare(root, len(ours))
    return {"sessions": sessions, "requests": len(ours),
            "agentls": (statistics.median(ours), percentile(ours, 0.99)),
            "bare": (statistics.median(theirs), percentile(theirs, 0.99))}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=20)
    result = asyncio.run(measure(parser.parse_args().sessions))
    (p50, p99), (b50, b99) = result["agentls"], result["bare"]
    summary.record("concurrency", p50=p50, p99=p99, bare_p50=b50, bare_p99=b99,
                   requests=result["requests"], sessions=result["sessions"])  # fmt: skip
    print(f"`textDocument/codeAction` answered, {result['requests']} requests each:\n")
    print("| server | p50 | p99 |")
    print("|---|---|---|")
    print(f"| agentls serve, {result['sessions']} sessions running | {p50:.1f} ms | {p99:.1f} ms |")
    print(f"| bare pygls server, idle | {b50:.1f} ms | {b99:.1f} ms |")
    print(f"\nagentls p99 / bare p99 = {p99 / b99:.1f}x. Target: agentls p99 under 50 ms.")


if __name__ == "__main__":
    main()
