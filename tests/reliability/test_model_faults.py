"""Model faults through the real SDKs against the fake APIs: a retry that succeeds, or
`model_error`; never a traceback, and no partial answer in the history.

Each fault is served by the fake Anthropic (or OpenAI-compatible) server in the
real wire format and read by the official SDK inside `agentls ask` (a
subprocess: its stderr is checked) or `agentls serve` (its messages to the
editor are checked). Read timeouts need a short timeout, which no setting
offers (the SDKs wait 600 s), so they run in process through the same
ConversationManager, loop and session log. Afterwards the session log has a
`model_output` event only for answers that arrived whole, and the history
rebuilt from the log holds each of them exactly once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import Settings
from agentls.providers.anthropic import AnthropicProvider
from agentls.providers.base import ModelProvider
from agentls.providers.openai_compat import OpenAIProvider
from agentls.session.events import RunFinished
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace
from tests.e2e.conftest import Cli
from tests.e2e.lsp.editor import start_editor
from tests.fakes import anthropic_replies as claude
from tests.fakes import openai_replies as oai
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.http_fake import FakeServer
from tests.fakes.openai_server import FakeOpenAI
from tests.reliability.conftest import Figures
from tests.reliability.sessions import assistant_texts, check_log, history_texts

PARTIAL = "PARTIAL-xyzzy"  # streamed before a fault; must never reach the history

# A stream that ends, cleanly for HTTP, in the middle of the answer.
CUT_SHORT = [
    ("message_start", {"type": "message_start", "message": {
        "id": "msg_cut", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
                             "content_block": {"type": "text", "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta", "text": PARTIAL}}),
]  # fmt: skip

# name -> (replies, terminal reason, the answer that must be in the history, or None)
Case = tuple[list[Any], str, str | None]
ANTHROPIC: dict[str, Case] = {
    "429 then ok": ([claude.status(429), claude.turn("Fine after 429.")], "completed",
                    "Fine after 429."),
    "529 twice then ok": ([claude.status(529), claude.status(529), claude.turn("Fine after 529.")],
                          "completed", "Fine after 529."),
    "500 then ok": ([claude.status(500), claude.turn("Fine after 500.")], "completed",
                    "Fine after 500."),
    "429 past the retries": ([claude.status(429)] * 5, "model_error", None),
    "500 past the retries": ([claude.status(500)] * 5, "model_error", None),
    "error event mid-stream": ([claude.error_event_mid_stream(text=PARTIAL)], "model_error", None),
    "api_error event mid-stream": (
        [claude.error_event_mid_stream(type="api_error", message="Internal", text=PARTIAL)],
        "model_error", None),
    "malformed SSE": ([claude.malformed()], "model_error", None),
    "stream cut before message_stop": ([claude.raw(CUT_SHORT)], "model_error", None),
}  # fmt: skip
OPENAI_ERROR = '{"error": {"message": "overloaded", "type": "server_error", "code": 503}}'
OPENAI: dict[str, Case] = {
    "429 then ok": ([oai.status(429), oai.chat("Fine after 429.")], "completed", "Fine after 429."),
    "500 then ok": ([oai.status(500), oai.chat("Fine after 500.")], "completed", "Fine after 500."),
    "503 past the retries": ([oai.status(503)] * 4, "model_error", None),
    "connection dropped mid-stream": ([oai.dropped(PARTIAL, abrupt=True)], "model_error", None),
    "stream ends without finish": ([oai.dropped(PARTIAL, abrupt=False)], "model_error", None),
    "error chunk mid-stream": (
        [oai.raw([{"choices": [{"index": 0, "delta": {"content": PARTIAL}}]}, OPENAI_ERROR],
                 done=False)], "model_error", None),
    "malformed SSE": ([oai.malformed()], "model_error", None),
}  # fmt: skip

EXIT = {"completed": 0, "model_error": 8}


def check_outcome(log: Path, reason: str, answer: str | None) -> None:
    events = check_log(log)
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert [f.result.terminal_reason for f in finished] == [reason]
    wanted = [answer] if answer else []
    assert assistant_texts(events) == wanted, "a model_output that did not arrive whole"
    assert history_texts(log) == wanted
    assert PARTIAL not in log.read_text(), "partial output in the log"


@pytest.mark.parametrize("name", list(ANTHROPIC))
def test_anthropic_fault_in_agentls_ask(cli: Cli, name: str) -> None:
    replies, reason, answer = ANTHROPIC[name]
    with FakeAnthropic(replies) as fake:
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}
        proc = cli.run("ask", "hello", "--model", "anthropic:claude-sonnet-4-5", env=env)
        assert fake.pending == 0, "the SDK did not retry as many times as expected"
    assert proc.returncode == EXIT[reason], proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    assert f"[{reason}" in proc.stderr, proc.stderr
    if answer:
        assert proc.stdout.count(answer) == 1, proc.stdout
    check_outcome(cli.session_files()[0], reason, answer)


@pytest.mark.parametrize("name", list(OPENAI))
def test_openai_fault_in_agentls_ask(cli: Cli, name: str) -> None:
    replies, reason, answer = OPENAI[name]
    with FakeOpenAI(replies) as fake:
        env = {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": fake.base_url}
        proc = cli.run("ask", "hello", "--model", "openai:gpt-4o-mini", env=env)
        assert fake.pending == 0, "the SDK did not retry as many times as expected"
    assert proc.returncode == EXIT[reason], proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    assert f"[{reason}" in proc.stderr, proc.stderr
    if answer:
        assert proc.stdout.count(answer) == 1, proc.stdout
    check_outcome(cli.session_files()[0], reason, answer)


# --- read timeouts (in process: the SDKs' timeout is not a setting) -------------------------


async def ask_in_process(tmp_path: Path, provider: ModelProvider) -> tuple[str, Path]:
    workspace = tmp_path / "project"
    workspace.mkdir()
    store = SessionStore(tmp_path / "state")
    manager = ConversationManager(store, provider_factory=lambda _: provider)
    conversation = manager.open(LocalWorkspace(workspace), Settings())
    try:
        result = await asyncio.wait_for(conversation.ask("hello"), 30)
    finally:
        manager.close()
    return result.reason.value, store.path_for(conversation.session_id)


Make = Callable[[str], ModelProvider]
TIMEOUTS: dict[str, tuple[type[FakeServer[Any]], Make, list[Any], list[Any]]] = {
    "anthropic": (
        FakeAnthropic,
        lambda url: AnthropicProvider("claude-x", api_key="k", base_url=url,
                                      timeout_seconds=0.5),
        [claude.stall(30, text=PARTIAL)], [claude.stall(30)],
    ),
    "openai": (
        FakeOpenAI,
        lambda url: OpenAIProvider("gpt-4o-mini", api_key="k", base_url=url, timeout_seconds=0.5),
        [oai.stall(30, text=PARTIAL)], [oai.stall(30)],
    ),
}  # fmt: skip


@pytest.mark.parametrize("api", list(TIMEOUTS))
@pytest.mark.parametrize("shape", ["mid-answer", "before the answer"])
async def test_read_timeout_ends_in_model_error(tmp_path: Path, api: str, shape: str) -> None:
    fake_type, make, with_text, silent = TIMEOUTS[api]
    with fake_type(with_text if shape == "mid-answer" else silent) as fake:
        reason, log = await ask_in_process(tmp_path, make(fake.base_url))
        assert fake.wait_for_disconnect(1, timeout=5), "the stalled stream was left open"
    assert reason == "model_error"
    run_finished = read_events(log)[-1]
    assert isinstance(run_finished, RunFinished) and "timed out" in run_finished.result.detail
    check_outcome(log, "model_error", None)


# --- one editor session through all the faults --------------------------------------------


async def test_faults_in_one_lsp_session(
    tmp_path: Path, isolated_state: Path, figures: Figures
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    names = list(ANTHROPIC)
    with FakeAnthropic([]) as fake:
        env = {
            "ANTHROPIC_API_KEY": "test-key",
            "ANTHROPIC_BASE_URL": fake.base_url,
            "AGENTLS_STATE_DIR": str(isolated_state),
        }
        editor = await start_editor(root, env, init_options={"model": "anthropic:claude-x"})
        session: str | None = None
        reasons = []
        try:
            for name in names:
                fake.add(*ANTHROPIC[name][0])
                extra = {"sessionId": session} if session else {}
                result = await editor.ask(f"about {name}", wait=True, **extra)
                session = result["sessionId"]
                reasons.append(result["terminalReason"])
                assert result["terminalReason"] == ANTHROPIC[name][1], (name, result)
                assert fake.pending == 0, name
            sessions = await editor.command("agentls.sessions")
            assert [s["runs"] for s in sessions] == [len(names)]
        finally:
            await editor.client.shutdown_session()
            await editor.client.stop()
    shown = [m.message for m in editor.client.messages] + [
        m.message for m in editor.client.log_messages
    ]
    assert not any("Traceback" in m or "Error in server" in m for m in shown), shown
    assert not any(m.type == types.MessageType.Error for m in editor.client.messages)
    (log,) = (isolated_state / "sessions").glob("*.jsonl")
    events = check_log(log)
    answers = [ANTHROPIC[n][2] for n in names if ANTHROPIC[n][2]]
    assert assistant_texts(events) == answers
    assert history_texts(log) == answers  # each whole answer once; no partial one
    model_errors = reasons.count("model_error")
    figures(
        f"model faults in one LSP session: {len(names)} runs, "
        f"{len(names) - model_errors} recovered by a retry, {model_errors} model_error; "
        f"{len(fake.requests)} API calls"
    )
