"""`agentls ask` exporting a run over OTLP/HTTP to a local collector: what arrives, what
never does, and a collector that is slow or down changing nothing of the run."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.helpers import script, wait_until

PROMPT = "PROMPT-MARKER-5e1d: write the notes"
CONTENT = "FILE-CONTENT-MARKER-0b7a"
# A command whose end the test decides: it waits until the file `go` is there.
WAIT_FOR_GO = "until [ -e go ]; do sleep 0.05; done; echo went"


def write_then_end(tmp_path: Path) -> str:
    return script(tmp_path, [
        {"text": "Writing.", "toolCalls": [
            {"name": "write_file", "input": {"path": "notes.txt", "content": CONTENT}}]},
        {"text": "Written."},
    ])  # fmt: skip


def wait_then_end(tmp_path: Path) -> str:
    return script(tmp_path, [
        {"text": "Waiting.", "toolCalls": [
            {"name": "run_command", "input": {"command": WAIT_FOR_GO}}]},
        {"text": "It went."},
    ])  # fmt: skip


def with_telemetry(cli: Cli, tmp_path: Path, endpoint: str) -> dict[str, str]:
    config = tmp_path / "config"
    (config / "agentls").mkdir(parents=True, exist_ok=True)
    settings = {"telemetry": {"enabled": True, "endpoint": endpoint}}
    (config / "agentls" / "settings.json").write_text(json.dumps(settings))
    return {"XDG_CONFIG_HOME": str(config)}


def outcome(proc: Any) -> tuple[int, str, str]:
    result = json.loads(proc.stdout)
    return proc.returncode, result["terminalReason"], result["text"]


def test_an_ask_arrives_as_spans_metrics_and_records_without_its_text(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    with OtlpReceiver() as receiver:
        env = with_telemetry(cli, tmp_path, receiver.endpoint)
        proc = cli.run("ask", PROMPT, "--model", write_then_end(tmp_path), "--yes", "--json",
                       env=env)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert (workspace / "notes.txt").read_text() == CONTENT
        session = json.loads(proc.stdout)["sessionId"]
        # The process exported before it ended: everything is here already.
        names = sorted(receiver.span_names())
    assert names == ["chat script", "chat script", "execute_tool write_file",
                     "invoke_agent agentls"]  # fmt: skip
    run = next(s for s in receiver.spans if s.name == "invoke_agent agentls")
    assert run.attributes["session.id"] == session
    assert run.attributes["agentls.run.reason"] == "completed"
    assert all(s.trace_id == run.trace_id for s in receiver.spans)
    tool = next(s for s in receiver.spans if s.name == "execute_tool write_file")
    assert tool.parent == run.span_id
    assert tool.attributes["agentls.decision.source"] == "approver"  # --yes
    assert {"agentls.token.usage", "agentls.cost.usage", "agentls.run.count",
            "agentls.tool.decision", "agentls.session.count",
            "agentls.time_to_first_token"} <= set(receiver.metrics)  # fmt: skip
    decision = next(r for r in receiver.records if r.event_name == "agentls.tool_decision")
    assert decision.attributes["verdict"] == "allow"
    assert decision.attributes["session.id"] == session
    sent = b"".join(receiver.bodies)
    assert b"PROMPT-MARKER" not in sent and b"FILE-CONTENT-MARKER" not in sent
    # The ids lead back to the session: `agentls show SESSION`, and the run in its log.
    assert cli.run("show", session).returncode == 0
    started = next(e for e in cli.events() if e["kind"] == "run_started")
    assert started["run"] == run.attributes["agentls.run.id"]


def test_a_slow_collector_holds_no_run(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    (workspace / "go").touch()  # the same run without telemetry: `go` is there at once
    before = cli.run("ask", "wait", "--model", wait_then_end(tmp_path), "--yes", "--json")
    (workspace / "go").unlink()
    assert outcome(before) == (0, "completed", "It went.")
    earlier = set(cli.session_files())
    with OtlpReceiver() as receiver:
        receiver.hold()  # every export waits, unanswered, until released
        env = {**with_telemetry(cli, tmp_path, receiver.endpoint), "OTEL_BSP_SCHEDULE_DELAY": "1"}
        proc = cli.popen("ask", "wait", "--model", wait_then_end(tmp_path), "--yes", "--json",
                         env=env)  # fmt: skip
        try:
            # The first model request's span is sent while the command waits, and hangs.
            assert receiver.arrived.wait(60), "no export was sent during the run"
            (workspace / "go").touch()
            # The run goes on to its end while that export is still unanswered.
            wait_until(lambda: finished(cli, earlier), 60, "the run's end in the session log")
            assert not receiver.bodies  # no export has been answered yet
        finally:
            receiver.release()
        stdout, _ = proc.communicate(timeout=60)
    result = json.loads(stdout)
    assert (proc.returncode, result["terminalReason"], result["text"]) == outcome(before)


def test_a_collector_that_is_down_changes_nothing(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    before = cli.run("ask", PROMPT, "--model", write_then_end(tmp_path), "--yes", "--json")
    (workspace / "notes.txt").unlink()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = with_telemetry(cli, tmp_path, f"http://127.0.0.1:{port}")
    proc = cli.run("ask", PROMPT, "--model", write_then_end(tmp_path), "--yes", "--json", env=env)
    assert outcome(proc) == outcome(before) == (0, "completed", "Written.")
    assert (workspace / "notes.txt").read_text() == CONTENT
    assert "telemetry:" in proc.stderr and "were not delivered" in proc.stderr


def finished(cli: Cli, earlier: set[Path]) -> bool:
    new = [p for p in cli.session_files() if p not in earlier]
    return len(new) == 1 and '"run_finished"' in new[0].read_text()
