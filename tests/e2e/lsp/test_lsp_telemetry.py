"""The language server's runs over OTLP/HTTP to a local collector, and the managed policy
it says is in force."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from tests.e2e.lsp.conftest import EditorFactory
from tests.e2e.lsp.editor import Editor, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.fakes.otlp_receiver import OtlpReceiver

PROMPT = "PROMPT-MARKER-lsp-4c1e: what does a.txt say?"
SECRET_CONTENT = "FILE-CONTENT-MARKER-lsp-8d2f"
MODEL = "anthropic:claude-sonnet-4-5"
# The SDK's standard variables: export at once rather than every few seconds.
SOON = {"OTEL_BSP_SCHEDULE_DELAY": "20", "OTEL_BLRP_SCHEDULE_DELAY": "20",
        "OTEL_METRIC_EXPORT_INTERVAL": "100"}  # fmt: skip


@pytest_asyncio.fixture
async def open_with(root: Path, model_env: dict[str, str]) -> AsyncIterator[EditorFactory]:
    started: list[Editor] = []

    async def factory(env: dict[str, str], **kwargs: object) -> Editor:
        editor = await start_editor(root, {**model_env, **env}, **kwargs)  # type: ignore[arg-type]
        started.append(editor)
        return editor

    yield factory
    for editor in started:
        await editor.client.shutdown_session()
        await editor.client.stop()


async def test_a_run_in_the_editor_arrives_as_telemetry_without_its_text(
    open_with: EditorFactory, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.txt").write_text(SECRET_CONTENT + "\n")
    fake.add(
        turn("Reading.", tool_calls=[("toolu_1", "read_file", {"path": "a.txt"})]),
        turn("It holds a marker."),
    )
    with OtlpReceiver() as receiver:
        options = {"model": MODEL, "telemetry": {"enabled": True, "endpoint": receiver.endpoint}}
        editor = await open_with(SOON, init_options=options)
        result = await editor.ask(PROMPT, wait=True)
        assert result["terminalReason"] == "completed"

        def arrived(r: OtlpReceiver) -> bool:
            names = r.span_names()
            return (
                "invoke_agent agentls" in names
                and "execute_tool read_file" in names
                and {"agentls.run.count", "agentls.tool.decision"} <= set(r.metrics)
                and any(x.event_name == "agentls.tool_decision" for x in r.records)
            )

        receiver.wait_for(arrived)
    run = next(s for s in receiver.spans if s.name == "invoke_agent agentls")
    assert run.attributes["session.id"] == result["sessionId"]
    assert run.attributes["agentls.run.id"] == result["runId"]
    chat = next(s for s in receiver.spans if s.name == "chat claude-sonnet-4-5")
    assert chat.attributes["gen_ai.provider.name"] == "anthropic"
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    sent = b"".join(receiver.bodies)
    assert b"PROMPT-MARKER" not in sent and b"FILE-CONTENT-MARKER" not in sent


async def test_the_editor_is_told_the_managed_policy_and_a_denied_write_is_not_made(
    open_with: EditorFactory, fake: FakeAnthropic, root: Path, tmp_path: Path
) -> None:
    policy = tmp_path / "managed-settings.json"
    policy.write_text(json.dumps({"permissions": {"deny": ["write_file(blocked.txt)"],
                                                  "disableBypassMode": True}}))  # fmt: skip
    fake.add(
        turn("Writing.", tool_calls=[("toolu_1", "write_file",
                                      {"path": "blocked.txt", "content": "x\n"})]),
        turn("Done."),
        turn("Again."),
    )  # fmt: skip
    options = {"model": MODEL, "mode": "bypass", "permissions": {"allow": ["write_file"]}}
    editor = await open_with({"AGENTLS_MANAGED_SETTINGS": str(policy)}, init_options=options)
    result = await editor.ask("write blocked.txt", wait=True)
    assert result["terminalReason"] == "completed"
    assert not (root / "blocked.txt").exists()
    shown = await editor.wait_for_message("managed settings in force")
    assert str(policy) in shown and 'mode "bypass"' in shown
    assert "permissions.allow write_file" in shown
    again = await editor.ask("and again", wait=True, sessionId=result["sessionId"])
    assert again["text"] == "Again."
    notices = [m for m in editor.client.messages if "managed settings in force" in m.message]
    assert len(notices) == 1  # once, not at every ask
