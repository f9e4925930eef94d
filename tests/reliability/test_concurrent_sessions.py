"""20 sessions at once in one `agentls serve`, while the editor keeps asking things.

Twenty runs of the scripted model (streamed text, file reads, searches,
listings and commands with their checkpoints, every turn logged) go on
together while the client sends, one after another and as fast as answers
come, `textDocument/codeAction`, `workspace/executeCommand agentls.sessions`
and `textDocument/didChange` (checked through the code action it enables:
the edited line asks agentls, so the change must have been taken in first).
Each request's answer time is measured at the client. The test prints p50 and
p99 and whether p99 met the 50 ms target; it asserts a loose bound only (this
machine is shared and has 2 cores).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from tests.e2e.lsp.editor import start_editor
from tests.helpers import percentile, write_script
from tests.reliability.conftest import Figures
from tests.reliability.sessions import check_history

SESSIONS = 20
TURNS = 60
TARGET_MS = 50.0
BOUND_MS = 500.0  # asserted on p99: loose, for a shared 2-core machine


def script() -> list[dict[str, Any]]:
    reads = [
        {"name": "read_file", "input": {"path": "a.py"}},
        {"name": "search", "input": {"pattern": "def \\w+"}},
        {"name": "list_files", "input": {}},
    ]
    # A command every tenth turn: its two checkpoints run git a dozen times.
    tools = [*reads * 3, {"name": "run_command", "input": {"command": "echo a command"}}]
    words = " ".join(f"word{i}" for i in range(60))  # about 25 text deltas a turn
    turns: list[dict[str, Any]] = [
        {"text": f"Turn {t}: {words}", "toolCalls": [tools[t % len(tools)]], "delaySeconds": 0.1}
        for t in range(TURNS - 1)
    ]
    return [*turns, {"text": "Done."}]


async def test_20_sessions_while_the_editor_keeps_asking(
    tmp_path: Path, isolated_state: Path, figures: Figures
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(200)))
    (root / "b.py").write_text("x = 1\n")
    model = write_script(tmp_path / "script.json", script())
    env = {"AGENTLS_STATE_DIR": str(isolated_state)}
    editor = await start_editor(
        root, env, init_options={"model": model, "mode": "bypass", "maxTurns": 100}
    )
    client = editor.client
    doc = editor.open("b.py")
    timings: dict[str, list[float]] = {"codeAction": [], "sessions": [], "didChange": []}
    try:
        # Each session reads the script afresh: twenty runs of the same turns.
        started = [await editor.ask(f"session {n}: go") for n in range(SESSIONS)]
        run_ids = {s["runId"] for s in started}
        assert len({s["sessionId"] for s in started}) == SESSIONS

        def finished() -> set[str]:
            return {e["runId"] for e in editor.events if e["kind"] == "run_finished"}

        def action_params(line: int) -> types.CodeActionParams:
            return types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=doc),
                range=types.Range(types.Position(line, 0), types.Position(line, 0)),
                context=types.CodeActionContext(diagnostics=[]),
            )

        async def timed(kind: str, request: Any) -> Any:
            t0 = time.perf_counter()
            answer = await asyncio.wait_for(request, 10)
            timings[kind].append((time.perf_counter() - t0) * 1000)
            return answer

        n = 0
        deadline = time.monotonic() + 120
        while not run_ids <= finished():
            assert time.monotonic() < deadline, "the runs did not finish"
            n += 1
            await timed("codeAction", client.text_document_code_action_async(action_params(0)))
            await timed("sessions", editor.command("agentls.sessions"))
            # didChange is a notification: its time is until a code action shows the change.
            t0 = time.perf_counter()
            editor.change(doc, f"x = {n}\n# agentls: check {n}\n")
            actions = await asyncio.wait_for(
                client.text_document_code_action_async(action_params(1)), 10
            )
            assert any(a.title == f"Ask agentls: check {n}" for a in actions or []), actions
            timings["didChange"].append((time.perf_counter() - t0) * 1000)
    finally:
        await client.shutdown_session()
        await client.stop()

    results = [e for e in editor.events if e["kind"] == "run_finished"]
    assert sorted(e["terminalReason"] for e in results) == ["completed"] * SESSIONS, results
    commands = sum("run_command" in str(turn.get("toolCalls")) for turn in script())
    for log in (isolated_state / "sessions").glob("*.jsonl"):
        events = read_events(log)
        state = reduce(events)
        assert state.open_run is None and state.runs[-1].turns == TURNS
        check_history(state.messages)
        # Sessions of one workspace share its checkpoint store: none may lose its own.
        assert sum(e.kind == "checkpoint" for e in events) == commands, log.name
    warnings = [m.message for m in client.log_messages if "checkpoints are off" in m.message]
    assert not warnings, warnings[:3]
    every = [t for values in timings.values() for t in values]
    p50, p99 = statistics.median(every), percentile(every, 0.99)
    per_kind = ", ".join(
        f"{kind} p50 {statistics.median(v):.1f} / p99 {percentile(v, 0.99):.1f} ms"
        for kind, v in timings.items()
    )
    verdict = "met" if p99 <= TARGET_MS else "missed"
    figures(
        f"{SESSIONS} concurrent sessions ({TURNS} turns each): {len(every)} requests, "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms ({verdict} the {TARGET_MS:.0f} ms target); "
        f"{per_kind}"
    )
    assert p99 < BOUND_MS, f"p99 {p99:.0f} ms"
