"""The `reasoning` setting, thoughts as `agentls/event`s and `agentls.ask` images, through
`agentls serve` with pytest-lsp as the editor and the fake Anthropic server as the model."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.e2e.lsp.conftest import EditorFactory
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import png


async def test_thoughts_come_as_their_own_events_and_the_setting_holds_for_the_next_run(
    open_editor: EditorFactory, fake: FakeAnthropic
) -> None:
    editor = await open_editor(configuration={"reasoning": "low"})
    fake.add(turn("The answer.", thinking="Consider the question first."))
    await editor.ask("q", wait=True)
    thoughts = [e for e in editor.events if e["kind"] == "thought"]
    assert "".join(e["text"] for e in thoughts) == "Consider the question first."
    answer = [e for e in editor.events if e["kind"] in ("text", "thought")]
    assert answer[-1] == {**answer[-1], "kind": "text", "text": "The answer."}
    assert fake.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 4000}

    editor.client.set_configuration({"reasoning": "high"}, section="agentls")
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    fake.add(turn("Again."))
    await editor.ask("again", wait=True)
    assert fake.requests[1].body["thinking"] == {"type": "enabled", "budget_tokens": 32000}


async def test_images_by_path_and_inline_reach_the_model(
    open_editor: EditorFactory, fake: FakeAnthropic, root: Path
) -> None:
    editor = await open_editor()
    on_disk, inline = png(4, 4), png(2, 5, shade=90)
    (root / "shots").mkdir()
    (root / "shots" / "a.png").write_bytes(on_disk)
    fake.add(turn("Two pictures."))
    images = [
        {"path": "shots/a.png"},
        {"data": base64.b64encode(inline).decode(), "mimeType": "image/jpeg"},  # bytes win
    ]
    result = await editor.ask("compare", wait=True, images=images)
    assert result["terminalReason"] == "completed"
    first, second, words = fake.requests[0].body["messages"][0]["content"]
    assert first["source"]["data"] == base64.b64encode(on_disk).decode()
    assert second["source"] == {
        "type": "base64", "media_type": "image/png", "data": base64.b64encode(inline).decode()
    }  # fmt: skip
    assert words["text"].startswith("compare")


async def test_a_refused_image_is_an_error_and_nothing_is_sent(
    open_editor: EditorFactory, fake: FakeAnthropic, root: Path, isolated_state: Path
) -> None:
    editor = await open_editor()
    (root / "fake.png").write_text("no picture\n")
    for images, why in (
        ([{"path": "fake.png"}], "is not a PNG, JPEG, GIF or WebP image"),
        ([{"data": "***"}], "image 1: its data is not base64"),
        ([{"path": "a.png", "data": "AAAA"}], 'either a "path" or its "data"'),
    ):
        with pytest.raises(JsonRpcInvalidParams) as refused:
            await editor.ask("look", images=images)
        assert why in str(refused.value)
    assert fake.requests == []
    assert list((isolated_state / "sessions").glob("*.jsonl")) == []
