"""The ACP agent opens and loads sessions off its event loop: while a session's log is
read, the loop goes on (other sessions keep streaming)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from agentls.acp.agent import AgentlsAgent
from agentls.conversation.open_sessions import ConversationManager
from agentls.session.events import RunStarted
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from tests.unit.lsp.test_loop_stays_free import HOLD_SECONDS, SlowCall


class RecordingClient:
    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))


def agent_for(state: Path) -> AgentlsAgent:
    agent = AgentlsAgent(ConversationManager(SessionStore(state)), model="scripted:demo")
    agent.on_connect(RecordingClient())  # type: ignore[arg-type]
    return agent


async def agent_with_a_session(tmp_path: Path) -> tuple[AgentlsAgent, Path, str]:
    """An agent over ``tmp_path/state`` with a new session in ``tmp_path/ws``."""
    root = tmp_path / "ws"
    root.mkdir()
    agent = agent_for(tmp_path / "state")
    return agent, root, (await agent.new_session(cwd=str(root))).session_id


async def test_loading_a_session_reads_its_log_off_the_loop(
    tmp_path: Path, monkeypatch: Any
) -> None:
    first, root, session_id = await agent_with_a_session(tmp_path)
    first.manager.close()

    other = agent_for(tmp_path / "state")  # another process, loading the session
    slow = SlowCall(other.manager.store.open)
    monkeypatch.setattr(other.manager.store, "open", slow)
    loading = asyncio.ensure_future(other.load_session(cwd=str(root), session_id=session_id))
    assert await asyncio.to_thread(slow.entered.wait, HOLD_SECONDS)  # the loop ran meanwhile
    assert not loading.done()
    slow.release.set()
    await loading
    assert threading.main_thread() not in slow.threads
    assert other.sessions[session_id].conversation.session_id == session_id
    other.manager.close()


async def test_a_prompts_resource_links_are_resolved_off_the_loop(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from acp.schema import ResourceContentBlock

    from agentls.acp import agent as agent_module

    agent, root, session_id = await agent_with_a_session(tmp_path)
    session = agent.sessions[session_id]
    slow = SlowCall(agent_module.prompt_parts)
    monkeypatch.setattr(agent_module, "prompt_parts", slow)
    link = ResourceContentBlock(type="resource_link", uri=(root / "a.py").as_uri(), name="a.py")
    prompting = asyncio.ensure_future(agent.prompt(session_id=session_id, prompt=[link]))
    assert await asyncio.to_thread(slow.entered.wait, HOLD_SECONDS)  # the loop ran meanwhile
    assert not prompting.done()
    slow.release.set()
    await prompting  # the demo's script, to its end
    assert threading.main_thread() not in slow.threads
    events = read_events(session.conversation.log.path)
    assert [e.prompt for e in events if isinstance(e, RunStarted)] == [
        "[the person points at a.py]"
    ]
    agent.manager.close()


async def test_a_new_sessions_folder_is_resolved_off_the_loop(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from agentls.acp import opening

    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    agent = agent_for(tmp_path / "state")
    slow = SlowCall(opening._resolved_folder)
    monkeypatch.setattr(opening, "_resolved_folder", slow)
    opening_task = asyncio.ensure_future(agent.new_session(cwd=str(link)))
    assert await asyncio.to_thread(slow.entered.wait, HOLD_SECONDS)  # the loop ran meanwhile
    assert not opening_task.done()
    slow.release.set()
    session_id = (await opening_task).session_id
    assert threading.main_thread() not in slow.threads
    assert agent.sessions[session_id].workspace.root == real.resolve()  # the link, followed
    agent.manager.close()


async def test_a_cwd_that_is_a_file_is_refused(tmp_path: Path) -> None:
    from acp import RequestError

    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    agent = agent_for(tmp_path / "state")
    for cwd in (str(a_file), "relative/folder", str(tmp_path / "missing")):
        try:
            await agent.new_session(cwd=cwd)
        except RequestError as exc:
            assert "is not an absolute folder" in str(exc.data or exc), exc
        else:
            raise AssertionError(f"cwd {cwd!r} was accepted")
    assert agent.sessions == {}
    agent.manager.close()
