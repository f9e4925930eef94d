"""agentls.asks, agentls.rewind and agentls.fork in the editor, the model the fake server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcInvalidParams

from tests.e2e import rewind_story as story
from tests.e2e.lsp.conftest import EditorFactory
from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, turn


@pytest_asyncio.fixture
async def bypassing(open_editor: EditorFactory) -> Editor:
    """An editor whose sessions ask no one (the story is about what comes after)."""
    editor: Editor = await open_editor(
        init_options={"model": "anthropic:claude-sonnet-4-5", "mode": "bypass"}
    )
    return editor


async def three_asks(editor: Editor, fake: FakeAnthropic, root: Path) -> list[dict[str, Any]]:
    story.workspace_files(root)
    results: list[dict[str, Any]] = []
    session: dict[str, str] = {}
    for number, prompt in enumerate(story.PROMPTS, start=1):
        fake.add(*story.ask_replies(number))
        result = await editor.ask(prompt, wait=True, **session)
        assert result["terminalReason"] == "completed", result
        session = {"sessionId": result["sessionId"]}
        results.append(result)
    story.after_three_asks(root)
    return results


def replay(session: str, state: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENTLS_STATE_DIR": str(state)}
    return subprocess.run([sys.executable, "-m", "agentls", "replay", session], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


async def test_a_rewind_by_the_asks_run_takes_back_asks_2_and_3_and_their_files(
    bypassing: Editor, fake: FakeAnthropic, root: Path, isolated_state: Path
) -> None:
    editor = bypassing
    results = await three_asks(editor, fake, root)
    session = results[0]["sessionId"]
    listed = await editor.command("agentls.asks", {"sessionId": session})
    assert [(a["ask"], a["prompt"], a["rewound"]) for a in listed] == [
        (n, p, False) for n, p in enumerate(story.PROMPTS, start=1)
    ]
    assert [a["runId"] for a in listed] == [r["runId"] for r in results]

    before = story.files(root)
    preview = await editor.command(
        "agentls.rewind", {"sessionId": session, "ask": 2, "dryRun": True}
    )
    assert preview["dryRun"] and preview["asks"] == [2, 3]
    assert preview["removed"] == ["made.txt"] and preview["kept"] == ["b.py"]
    assert "would take back asks 2" in preview["summary"]
    assert story.files(root) == before  # a dry run changes nothing

    rewound = await editor.command(
        "agentls.rewind", {"sessionId": session, "runId": results[1]["runId"]}
    )
    assert rewound["asks"] == [2, 3] and rewound["runs"] == [r["runId"] for r in results[1:]]
    assert rewound["restored"] == ["a.py"] and rewound["removed"] == ["made.txt"]
    assert rewound["kept"] == ["b.py"] and not rewound["dryRun"]
    story.after_rewind_to_ask_2(root)
    await editor.wait_for_message("rewound to before ask 2: took back asks 2")

    fake.add(turn("answer 4"))
    fourth = await editor.ask("fourth", wait=True, sessionId=session)
    assert fourth["terminalReason"] == "completed"
    story.only_ask_1(story.last_request(fake), "fourth")
    listed = await editor.command("agentls.asks", {"sessionId": session})
    assert [(a["ask"], a["rewound"]) for a in listed] == [(1, False), (2, True), (3, True),
                                                          (4, False)]  # fmt: skip

    with pytest.raises(JsonRpcInvalidParams, match="ask 2 is taken back already"):
        await editor.command("agentls.rewind", {"sessionId": session, "ask": 2})
    with pytest.raises(JsonRpcInvalidParams, match="no ask 9 in this session"):
        await editor.command("agentls.rewind", {"sessionId": session, "ask": 9})
    with pytest.raises(JsonRpcInvalidParams, match="not both"):
        await editor.command("agentls.rewind", {"sessionId": session, "ask": 1, "runId": "r"})
    proc = replay(session, isolated_state)
    assert proc.returncode == 0, proc.stdout + proc.stderr


async def test_a_fork_at_ask_2_sends_ask_1_only_and_changes_no_file(
    bypassing: Editor, fake: FakeAnthropic, root: Path, isolated_state: Path
) -> None:
    editor = bypassing
    results = await three_asks(editor, fake, root)
    session = results[0]["sessionId"]
    before = story.files(root)

    forked = await editor.command("agentls.fork", {"sessionId": session, "ask": 2})
    fork = forked["sessionId"]
    assert fork != session and forked == {"sessionId": fork, "forkedFrom": session, "ask": 2}
    assert story.files(root) == before
    await editor.wait_for_message(f"forked session {session} (before ask 2) as {fork}")

    fake.add(turn("answer forked"))
    result = await editor.ask("forked", wait=True, sessionId=fork)
    assert result["terminalReason"] == "completed" and result["sessionId"] == fork
    story.only_ask_1(story.last_request(fake), "forked")
    assert story.files(root) == before

    sessions = {s["sessionId"]: s for s in await editor.command("agentls.sessions")}
    assert (sessions[fork]["forkedFrom"], sessions[fork]["forkedAtAsk"]) == (session, 2)
    assert "forkedFrom" not in sessions[session]  # not a fork
    listed = await editor.command("agentls.asks", {"sessionId": fork})
    assert [(a["ask"], a["prompt"]) for a in listed] == [(1, story.PROMPTS[0]), (2, "forked")]
    for replayed in (fork, session):
        proc = replay(replayed, isolated_state)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    with pytest.raises(JsonRpcInvalidParams, match="no ask 7 in the session"):
        await editor.command("agentls.fork", {"sessionId": session, "ask": 7})
    with pytest.raises(JsonRpcInvalidParams, match="no session 'nope' in "):
        await editor.command("agentls.fork", {"sessionId": "nope"})
