"""100 cancels at random moments: every run ends `aborted` in time, no process is left over.

70 runs in one `agentls serve` (a pytest-lsp editor, the fake Anthropic API
behind the real SDK) are cancelled while the model streams, while an approval
prompt waits, while an approved command runs with child processes, or after
the k-th `agentls/event` of a longer run; by `agentls.cancel` (one session or
all), by `window/workDoneProgress/cancel`, or by `$/cancelRequest` on a waited
`agentls.ask`. 30 `agentls ask` processes get Ctrl-C (SIGINT) while the model
streams, while the scripted model thinks, while a command runs, or after the
k-th line of the session log. Each point is an observable event; k, the point
and the way of cancelling are drawn from a seeded generator.

After each cancel: the run ends `aborted` within a bound (the time is
measured), no process with the test's marker is left, the server still
answers, and at the end every run of the session log is closed and the
rebuilt history is well formed.
"""

from __future__ import annotations

import asyncio
import collections
import os
import random
import signal
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from agentls.session.events import RunFinished
from agentls.session.reader import read_events
from agentls.session.reducer import reduce
from tests.e2e.conftest import Cli
from tests.e2e.lsp.editor import Editor, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, stall, turn
from tests.helpers import until, wait_until, write_script
from tests.processes import processes_with
from tests.reliability.conftest import Figures
from tests.reliability.sessions import check_history, check_log, complete_lines

LSP_CANCELS = 70
CLI_CANCELS = 30
SEED = 4242
MARKER = "sleep 733.25"  # in the command line of every process a run starts
CLI_MARKER = "sleep 733.5"  # + a run's own number: two run at once


def children(marker: str) -> str:
    """A command whose shell waits for two children."""
    return f"{marker} & {marker}; wait"


CHILDREN = children(MARKER)
END_BOUND = 10.0  # seconds from the cancel to the run's end (and its processes' end)


def call(name: str, args: dict[str, Any], n: int) -> tuple[str, str, dict[str, Any]]:
    return (f"toolu_{name}_{n}", name, args)


def longer_run(n: int) -> list[Any]:
    return [
        turn("Looking.", tool_calls=[call("list_files", {}, n)]),
        turn("Reading.", tool_calls=[call("read_file", {"path": "a.py"}, n)]),
        turn("Running.", tool_calls=[call("run_command", {"command": f"echo {n}"}, n)]),
        turn("Searching.", tool_calls=[call("search", {"pattern": "def"}, n)]),
        turn("Done."),
    ]


class Lane:
    """One editor, one session, runs one after another."""

    def __init__(self, editor: Editor, fake: FakeAnthropic) -> None:
        self.editor = editor
        self.fake = fake
        self.session_id: str | None = None
        self.prompt_shown = asyncio.Event()
        self.release = asyncio.Event()
        self.hold_prompts = False

    async def answer(self, params: types.ShowMessageRequestParams) -> str | None:
        if not self.hold_prompts:
            return "Allow once"
        self.prompt_shown.set()
        await self.release.wait()  # the person looks away until the run is gone
        return None

    def run_events(self, start: int) -> list[dict[str, Any]]:
        return self.editor.events[start:]

    async def one(self, n: int, rng: random.Random) -> dict[str, Any]:
        editor, fake = self.editor, self.fake
        point = rng.choice(["stream", "approval", "command", "kth-event", "kth-event"])
        how = rng.choice(["session", "session", "all", "progress", "request"])
        k = rng.randint(1, 9)
        self.hold_prompts = point == "approval"
        self.prompt_shown.clear()
        self.release.clear()
        editor.answers = [self.answer] * 5
        if point == "stream":
            fake.add(stall(60, text=f"streaming answer {n} ..."))
        elif point == "approval":
            fake.add(turn(tool_calls=[call("run_command", {"command": CHILDREN}, n)]))
        elif point == "command":
            fake.add(turn("Sleeping.", tool_calls=[call("run_command", {"command": CHILDREN}, n)]))
        else:
            fake.add(*longer_run(n))
        start = len(editor.events)
        tokens_before = set(editor.client.progress_reports)
        arguments: dict[str, Any] = {"prompt": f"task {n}", "wait": how == "request"}
        if self.session_id is not None:
            arguments["sessionId"] = self.session_id
        params = types.ExecuteCommandParams(command="agentls.ask", arguments=[arguments])
        pending = editor.client.protocol.send_request(
            types.WORKSPACE_EXECUTE_COMMAND, params, msg_id=f"ask-{n}"
        )
        if how != "request":
            # The first ask loads the core and may wait for the editor's settings: on a
            # busy machine that alone can take longer than a later ask's bound.
            bound = 60 if self.session_id is None else 10
            started = await asyncio.wait_for(asyncio.wrap_future(pending), bound)
            self.session_id = started["sessionId"]

        def seen(kind: str) -> bool:
            return any(e["kind"] == kind for e in self.run_events(start))

        if point == "stream":
            await until(lambda: seen("text"), "streamed text")
        elif point == "approval":
            await asyncio.wait_for(self.prompt_shown.wait(), 60)
        elif point == "command":
            await until(lambda: len(processes_with(MARKER)) >= 2, "the command's children")
        else:
            await until(lambda: len(self.run_events(start)) >= k or seen("run_finished"), "events")
        if how == "progress":
            await until(lambda: set(editor.client.progress_reports) - tokens_before, "progress")

        cancelled_at = time.monotonic()
        if how == "session":
            assert self.session_id is not None
            answer = await editor.command("agentls.cancel", {"sessionId": self.session_id})
        elif how == "all":
            answer = await editor.command("agentls.cancel", {})
        elif how == "progress":
            (token,) = set(editor.client.progress_reports) - tokens_before
            editor.client.window_work_done_progress_cancel(
                types.WorkDoneProgressCancelParams(token)
            )
        else:
            editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=f"ask-{n}"))
        await until(lambda: seen("run_finished"), "the run's end", timeout=END_BOUND)
        ended = time.monotonic() - cancelled_at
        finished = next(e for e in self.run_events(start) if e["kind"] == "run_finished")
        self.session_id = finished["sessionId"]
        if how == "request":
            try:
                answer = await asyncio.wait_for(asyncio.wrap_future(pending), 10)
                assert answer["terminalReason"] == "completed", answer  # it had ended first
            except JsonRpcRequestCancelled:
                pass
        self.release.set()
        await until(lambda: not processes_with(MARKER), "no process left", timeout=END_BOUND)
        reason = finished["terminalReason"]
        if point != "kth-event":  # those runs cannot end by themselves
            assert reason == "aborted", (point, how, finished)
        else:
            assert reason in ("aborted", "completed"), finished
        if how in ("session", "all"):
            assert answer["cancelled"] is (reason == "aborted"), (answer, finished)
        with fake._lock:  # what an aborted run did not ask for is not the next run's
            fake._replies.clear()
        listed = await asyncio.wait_for(editor.command("agentls.sessions"), 5)
        assert [s["running"] for s in listed if s["sessionId"] == self.session_id] == [False]
        return {"point": point, "how": how, "reason": reason, "seconds": ended}


async def test_70_cancels_in_the_language_server(
    tmp_path: Path, isolated_state: Path, figures: Figures
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    rng = random.Random(SEED)
    with FakeAnthropic([]) as fake:
        env = {
            "ANTHROPIC_API_KEY": "test-key",
            "ANTHROPIC_BASE_URL": fake.base_url,
            "AGENTLS_STATE_DIR": str(isolated_state),
        }
        # No sandbox here: bubblewrap ends a command's processes with it, and this
        # checks agentls's own process-group kill (the CLI test keeps the sandbox).
        settings = {"model": "anthropic:claude-sonnet-4-5", "sandbox": "off"}
        editor = await start_editor(root, env, init_options=settings)
        try:
            lane = Lane(editor, fake)
            results = [await lane.one(n, rng) for n in range(LSP_CANCELS)]
        finally:
            lane.release.set()
            await editor.client.shutdown_session()
            await editor.client.stop()
    assert not any(m.type == types.MessageType.Error for m in editor.client.messages)
    (log,) = (isolated_state / "sessions").glob("*.jsonl")
    events = check_log(log)
    state = reduce(events)
    assert len(state.runs) == LSP_CANCELS and state.open_run is None
    check_history(state.messages)
    aborted = [r["seconds"] for r in results if r["reason"] == "aborted"]
    figures(
        f"LSP cancels: {len(aborted)} of {LSP_CANCELS} runs aborted "
        f"({dict(collections.Counter(r['point'] for r in results))}; by "
        f"{dict(collections.Counter(r['how'] for r in results))}); cancel to run_finished "
        f"p50 {statistics.median(aborted) * 1000:.0f} ms, max {max(aborted) * 1000:.0f} ms"
    )
    assert len(aborted) >= LSP_CANCELS * 0.8


# --- Ctrl-C on `agentls ask` ---------------------------------------------------------


def ctrl_c_run(base: Path, n: int, point: str, k: int) -> dict[str, Any]:
    workspace = base / f"cli{n}" / "project"
    workspace.mkdir(parents=True)
    (workspace / "a.py").write_text("def a():\n    return 1\n")
    cli = Cli(base / f"cli{n}" / "state", workspace)
    marker = f"{CLI_MARKER}{n:02d}1"  # e.g. sleep 733.5071: no run's is part of another's
    script = base / f"cli{n}" / "script.json"
    with FakeAnthropic([stall(60, text="streaming ...")]) as fake:
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}
        if point == "stream":
            args = ["--model", "anthropic:claude-sonnet-4-5"]
        elif point == "thinking":
            args = ["--model", write_script(script, [{"text": "x", "delaySeconds": 60}])]
        elif point == "command":
            command = {"name": "run_command", "input": {"command": children(marker)}}
            args = ["--model", write_script(script, [{"toolCalls": [command]}])]
        else:
            calls = [
                {"name": "list_files", "input": {}},
                {"name": "run_command", "input": {"command": "echo one"}},
                {"name": "read_file", "input": {"path": "a.py"}},
                {"name": "search", "input": {"pattern": "def"}},
            ]
            turns = [{"toolCalls": [c], "delaySeconds": 0.05} for c in calls] + [{"text": "Done"}]
            args = ["--model", write_script(script, turns)]
        proc = cli.popen("ask", f"task {n}", *args, "--yes", env=env)
        try:

            def lines() -> int:
                files = cli.session_files()
                return complete_lines(files[0]).count(b"\n") if files else 0

            def model_request_logged() -> bool:
                files = cli.session_files()
                return bool(files) and b'"model_request"' in complete_lines(files[0])

            if point == "stream":
                wait_until(lambda: len(fake.requests) >= 1, what="the model call")
            elif point == "thinking":
                wait_until(model_request_logged, what="the model call")
            elif point == "command":
                wait_until(lambda: len(processes_with(marker)) >= 2, what="the command's children")
            else:
                wait_until(lambda: lines() >= k or proc.poll() is not None, what="log lines")
            signalled = time.monotonic()
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=END_BOUND)
            ended = time.monotonic() - signalled
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert "Traceback" not in err, err
    events = read_events(cli.session_files()[0])
    finished = events[-1]
    assert isinstance(finished, RunFinished), finished
    reason = finished.result.terminal_reason
    if point != "kth-line":
        assert reason == "aborted" and proc.returncode == 130, (point, proc.returncode, err)
    else:
        assert (reason, proc.returncode) in (("aborted", 130), ("completed", 0)), err
    check_history(reduce(events).messages)
    return {"point": point, "reason": reason, "seconds": ended}


def test_30_ctrl_c_on_agentls_ask(tmp_path: Path, figures: Figures) -> None:
    rng = random.Random(SEED + 1)
    plans = [
        (n, rng.choice(["stream", "thinking", "command", "kth-line"]), rng.randint(3, 28))
        for n in range(CLI_CANCELS)
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda plan: ctrl_c_run(tmp_path, *plan), plans))
    wait_until(lambda: not processes_with(CLI_MARKER), timeout=END_BOUND, what="no process left")
    aborted = [r["seconds"] for r in results if r["reason"] == "aborted"]
    figures(
        f"Ctrl-C: {len(aborted)} of {CLI_CANCELS} runs aborted "
        f"({dict(collections.Counter(r['point'] for r in results))}); SIGINT to exit "
        f"p50 {statistics.median(aborted) * 1000:.0f} ms, max {max(aborted) * 1000:.0f} ms"
    )
    assert len(aborted) >= CLI_CANCELS * 0.8
