"""A run's telemetry, in process against a local OTLP collector: what is sent, that nothing
waits for the collector, and that what it never took is counted."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from agentls.telemetry.config import TelemetryConfig
from agentls.telemetry.export import QUEUE_SIZE, exporters_for, shutdown_all
from agentls.telemetry.watch import decision_source
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.unit.helpers import call, conversation

PROMPT = "PROMPT-MARKER-7f3a please write the file"
CONTENT = "FILE-CONTENT-MARKER-91c2"


@pytest.fixture
def receiver() -> Any:
    with OtlpReceiver() as found:
        yield found
    shutdown_all(0.5)


def telemetry(receiver: OtlpReceiver, **more: Any) -> dict[str, Any]:
    return {"telemetry": {"enabled": True, "endpoint": receiver.endpoint, **more}}


def test_a_run_is_a_trace_of_its_requests_and_tool_calls(
    tmp_path: Path, receiver: OtlpReceiver
) -> None:
    turns = [
        {"text": "Writing.", "toolCalls": [call("write_file", path="out.txt", content=CONTENT)]},
        {"text": "done"},
    ]
    conv, _, manager = conversation(tmp_path, turns, settings={**telemetry(receiver),
                                                               "mode": "accept-edits"})  # fmt: skip
    try:
        result = asyncio.run(conv.ask(PROMPT))
    finally:
        manager.close()
    assert result.reason.value == "completed"
    shutdown_all()  # what the process does at exit
    names = receiver.span_names()
    assert sorted(names) == ["chat script", "chat script", "execute_tool write_file",
                             "invoke_agent agentls"]  # fmt: skip
    run = next(s for s in receiver.spans if s.name == "invoke_agent agentls")
    for span in receiver.spans:
        assert span.trace_id == run.trace_id
        assert span.attributes["session.id"] == conv.session_id
        assert span.attributes["agentls.run.id"] == run.attributes["agentls.run.id"]
        if span is not run:
            assert span.parent == run.span_id
    assert run.resource["service.name"] == "agentls"
    assert run.attributes["agentls.run.reason"] == "completed"
    chat = next(s for s in receiver.spans if s.name == "chat script")
    assert chat.attributes["gen_ai.provider.name"] == "scripted"
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    tool = next(s for s in receiver.spans if s.name.startswith("execute_tool"))
    assert tool.attributes["agentls.decision.verdict"] == "allow"
    assert tool.attributes["agentls.decision.source"] == "mode"
    assert tool.attributes["agentls.tool.outcome"] == "ok"
    for metric in ("agentls.token.usage", "agentls.run.count", "agentls.tool.decision",
                   "agentls.session.count", "gen_ai.client.operation.duration"):  # fmt: skip
        assert metric in receiver.metrics, sorted(receiver.metrics)
    kinds = {p["attributes"]["type"] for p in receiver.metrics["agentls.token.usage"]}
    assert {"input", "output"} <= kinds
    events = [r.event_name for r in receiver.records]
    assert "agentls.tool_decision" in events and "agentls.user_prompt" in events
    sent = b"".join(receiver.bodies)
    assert b"PROMPT-MARKER" not in sent and b"FILE-CONTENT-MARKER" not in sent


def test_content_is_sent_only_when_asked_and_then_masked(
    tmp_path: Path, receiver: OtlpReceiver
) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8" * 3
    conv, _, manager = conversation(
        tmp_path, [{"text": "ok"}], settings=telemetry(receiver, logContent=True)
    )
    try:
        asyncio.run(conv.ask(f"{PROMPT} with {key}"))
    finally:
        manager.close()
    shutdown_all()
    prompt = next(r for r in receiver.records if r.event_name == "agentls.user_prompt")
    assert "PROMPT-MARKER-7f3a" in prompt.body
    assert key not in prompt.body and b"A1b2C3d4E5f6G7h8A1b2" not in b"".join(receiver.bodies)


def test_a_failed_run_is_an_error_span_and_record(tmp_path: Path, receiver: OtlpReceiver) -> None:
    conv, _, manager = conversation(
        tmp_path,
        [{"error": {"message": "overloaded", "kind": "overloaded"}}],
        settings=telemetry(receiver),
    )
    try:
        result = asyncio.run(conv.ask("hello"))
    finally:
        manager.close()
    assert result.reason.value == "model_error"
    shutdown_all()
    run = next(s for s in receiver.spans if s.name == "invoke_agent agentls")
    assert run.status == 2  # STATUS_CODE_ERROR
    (error,) = [r for r in receiver.records if r.event_name == "agentls.error"]
    assert error.attributes["error.type"] == "model_error"


def test_a_collector_that_does_not_answer_holds_no_run_and_drops_are_counted(
    tmp_path: Path, receiver: OtlpReceiver, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "1")  # export as soon as a span ends
    receiver.hold()
    conv, _, manager = conversation(
        tmp_path, [{"text": "one"}, {"text": "two"}], settings=telemetry(receiver)
    )
    try:
        first = asyncio.run(conv.ask("first"))
        assert receiver.arrived.wait(30)  # the first export is sent, and left unanswered
        second = asyncio.run(conv.ask("second"))  # while it hangs, the next run goes on
    finally:
        manager.close()
    assert (first.reason.value, first.text) == ("completed", "one")
    assert (second.reason.value, second.text) == ("completed", "two")
    exporters = exporters_for(TelemetryConfig(enabled=True, endpoint=receiver.endpoint))
    for _ in range(QUEUE_SIZE * 2):  # far more than the queue holds: never a wait
        exporters.tracer.start_span("filler").end()
        exporters.span_ended()
    with caplog.at_level(logging.WARNING, logger="agentls.telemetry"):
        exporters.shutdown(0.2)
    assert exporters.spans.undelivered >= QUEUE_SIZE
    assert "were not delivered to " + receiver.endpoint in caplog.text


@pytest.mark.parametrize(
    ("source", "answer", "person", "expected"),
    [
        ("deny rule run_command(rm *)", None, False, "rule"),
        ("allow rule read_file", None, False, "rule"),
        ("ask rule write_file (bypass mode)", None, False, "mode"),
        ("bypass mode", None, False, "mode"),
        ("reads are allowed", None, False, "mode"),
        ("commands need approval; answered allow_once", "allow_once", True, "person"),
        ("commands need approval; answered allow_once", "allow_once", False, "approver"),
        ("out.txt is a control file: writing it needs a person", None, False, "gate"),
        ("PreToolUse hook `./guard.sh`: no pushes", None, False, "hook"),
        (
            "PreToolUse hook `./ok.sh`: fine (as an allow rule run_command(ls) would)",
            None,
            False,
            "hook",
        ),
        ("a PreToolUse hook stopped the run: enough", None, False, "hook"),
    ],
)
def test_who_decided(source: str, answer: str | None, person: bool, expected: str) -> None:
    from agentls.contracts.decisions import ApprovalAnswer

    given = ApprovalAnswer(answer) if answer is not None else None
    assert decision_source(source, given, person) == expected
