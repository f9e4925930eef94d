"""A session opened by the language server has its provider ready: the first model call
imports nothing (an import there would hold up the editor's requests on the event loop)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes import anthropic_replies, openai_replies
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import asyncio, json, sys
from pathlib import Path
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace

async def main(root: Path) -> None:
    manager = ConversationManager(SessionStore(root / "state"))
    settings = load_settings({"model": sys.argv[2]})
    conversation = await manager.open_async(LocalWorkspace(root), settings)  # as the LSP does
    before = set(sys.modules)
    result = await conversation.ask("hi")
    manager.close()
    print(json.dumps({"reason": result.reason.value, "text": result.text,
                      "imported": sorted(set(sys.modules) - before)}))

asyncio.run(main(Path(sys.argv[1])))
"""


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_the_first_model_call_imports_nothing(tmp_path: Path, provider: str) -> None:
    if provider == "anthropic":
        fake: FakeAnthropic | FakeOpenAI = FakeAnthropic([anthropic_replies.turn("hello")])
        model, key, url = "anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"
    else:
        fake = FakeOpenAI([openai_replies.chat("hello")])
        model, key, url = "openai:gpt-4o", "OPENAI_API_KEY", "OPENAI_BASE_URL"
    with fake:
        env = {**os.environ, key: "test-key", url: fake.base_url}
        out = subprocess.run(
            [sys.executable, "-c", PROBE, str(tmp_path), model],
            capture_output=True, text=True, check=True, env=env, cwd=ROOT,
        ).stdout  # fmt: skip
    answer = json.loads(out)
    assert (answer["reason"], answer["text"]) == ("completed", "hello")
    assert answer["imported"] == []
