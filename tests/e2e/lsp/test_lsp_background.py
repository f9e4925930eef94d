"""Background processes through the language server: a model starts `python3 -m
http.server` in the background, fetches a page from it with a second command, reads
the server's log and stops it; the editor sees `process` events and lists and stops the
session's processes with `agentls.processes`. No process of the session is left after
the run, after a cancel, at shutdown, when the editor goes away, or after kill -9."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agentls.workspace import sandbox
from tests.e2e.lsp.editor import Editor, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, stall, turn
from tests.helpers import tool_result_text, until
from tests.processes import processes_naming

pytestmark = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None, reason=f"no sandbox here: {sandbox.bwrap_problem()}"
)
PAGE = "<h1>the page served</h1>\n"
FETCH = """\
import sys, time, urllib.request
for _ in range(600):  # until the server listens: it started in the background
    try:
        body = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/page.html").read()
        break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("the server never answered")
open("fetched.txt", "wb").write(body)
"""
SETTINGS = {"model": "anthropic:claude-sonnet-4-5", "permissions": {"allow": ["run_command"]}}


class Site:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.token = f"site-{secrets.token_hex(4)}"
        (root / self.token).mkdir()
        (root / self.token / "page.html").write_text(PAGE)
        (root / "fetch.py").write_text(FETCH)
        self.serve = f"python3 -u -m http.server 8765 --bind 127.0.0.1 --directory {self.token}"

    def start(self, call_id: str = "toolu_serve") -> Any:
        return turn(tool_calls=[(call_id, "run_command", {"command": self.serve,
                                                         "background": True})])  # fmt: skip

    def fetch(self) -> Any:
        return turn(
            tool_calls=[("toolu_fetch", "run_command", {"command": "python3 fetch.py 8765"})]
        )

    def nothing_left(self) -> bool:
        """Neither the server nor the session's sandbox (whose commands name the root)."""
        return not processes_naming(self.token) and not processes_naming(str(self.root))

    async def gone(self, timeout: float = 30) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.nothing_left():
            assert loop.time() < deadline, "a process of the session is left"
            await asyncio.sleep(0.02)


@pytest_asyncio.fixture
async def opened(root: Path, model_env: dict[str, str]) -> AsyncIterator[list[Editor]]:
    """Editors a test starts; each is shut down at the end unless the test ended it."""
    editors: list[Editor] = []
    yield editors
    for editor in editors:
        server = editor.client._server
        if server is not None and server.returncode is None:
            await editor.client.shutdown_session()
        await editor.client.stop()


async def editor_for(opened: list[Editor], root: Path, model_env: dict[str, str]) -> Editor:
    editor = await start_editor(root, model_env, init_options=SETTINGS, configuration=SETTINGS)
    opened.append(editor)
    return editor


def process_events(editor: Editor) -> list[tuple[str, str, str | None]]:
    return [(e["id"], e["action"], e["by"]) for e in editor.events if e["kind"] == "process"]


async def test_served_fetched_read_and_stopped_in_one_run(
    opened: list[Editor], root: Path, model_env: dict[str, str], fake: FakeAnthropic
) -> None:
    site = Site(root)
    editor = await editor_for(opened, root, model_env)
    fake.add(
        site.start(),
        site.fetch(),
        turn(tool_calls=[("toolu_log", "process_output", {"id": "p1", "wait_seconds": 10})]),
        turn(tool_calls=[("toolu_stop", "process_stop", {"id": "p1"})]),
        turn("Served, fetched and stopped."),
    )
    result = await editor.ask("serve the site and check it", wait=True)
    assert result["terminalReason"] == "completed"
    assert (root / "fetched.txt").read_text() == PAGE  # the second command reached it
    assert '"GET /page.html HTTP/1.1" 200' in tool_result_text(fake, 3)  # the log the model got
    assert "[p1 stopped" in tool_result_text(fake, 4)
    assert process_events(editor) == [("p1", "started", None), ("p1", "stopped", "model")]
    started = next(e for e in editor.events if e["kind"] == "process")
    assert started["runId"] == result["runId"] and started["command"] == site.serve
    listed = await editor.command("agentls.processes")
    assert [(p["id"], p["state"]) for p in listed["processes"]] == [("p1", "stopped")]
    assert not processes_naming(site.token)  # (the session's sandbox is there while it is open)


async def test_a_person_lists_and_stops_what_a_run_left_running(
    opened: list[Editor], root: Path, model_env: dict[str, str], fake: FakeAnthropic
) -> None:
    site = Site(root)
    editor = await editor_for(opened, root, model_env)
    fake.add(site.start(), site.fetch(), turn("It runs."))
    result = await editor.ask("serve it", wait=True)
    assert (root / "fetched.txt").read_text() == PAGE
    listed = await editor.command("agentls.processes", {"sessionId": result["sessionId"]})
    (entry,) = listed["processes"]
    assert (entry["id"], entry["state"], entry["command"]) == ("p1", "running", site.serve)
    assert processes_naming(site.token), "it runs after its run"
    stopped = await editor.command("agentls.processes", {"stop": "p1"})
    assert stopped["stopped"] == "p1" and stopped["processes"][0]["state"] == "stopped"
    assert process_events(editor)[-1] == ("p1", "stopped", "person")
    assert not processes_naming(site.token)


async def test_a_cancelled_run_leaves_its_process_to_the_session_until_shutdown(
    opened: list[Editor], root: Path, model_env: dict[str, str], fake: FakeAnthropic
) -> None:
    site = Site(root)
    editor = await editor_for(opened, root, model_env)
    fake.add(site.start(), stall(120))
    started = await editor.ask("serve it")
    await until(
        lambda: process_events(editor) and len(fake.requests) == 2,
        "the process event and the second model call",
        timeout=30,
    )
    await editor.command("agentls.cancel", {"sessionId": started["sessionId"]})
    finished = await editor.wait_finished()
    assert finished["terminalReason"] == "aborted"
    assert processes_naming(site.token), "the session is open: its process runs"
    await editor.client.shutdown_session()
    assert process_events(editor)[-1] == ("p1", "stopped", "session end")
    assert site.nothing_left()


async def test_when_the_editor_goes_away_nothing_is_left(
    opened: list[Editor], root: Path, model_env: dict[str, str], fake: FakeAnthropic
) -> None:
    site = Site(root)
    editor = await editor_for(opened, root, model_env)
    fake.add(site.start(), turn("It runs."))
    await editor.ask("serve it", wait=True)
    assert processes_naming(site.token)
    server = editor.client._server
    assert server is not None and server.stdin is not None
    server.stdin.close()  # the editor is gone, without a shutdown
    await asyncio.wait_for(server.wait(), 60)
    await site.gone()


async def test_kill_9_of_the_server_leaves_no_process(
    opened: list[Editor], root: Path, model_env: dict[str, str], fake: FakeAnthropic
) -> None:
    site = Site(root)
    editor = await editor_for(opened, root, model_env)
    fake.add(site.start(), turn("It runs."))
    await editor.ask("serve it", wait=True)
    assert processes_naming(site.token)
    server = editor.client._server
    assert server is not None
    server.kill()
    await asyncio.wait_for(server.wait(), 60)
    await site.gone()  # the session's sandbox died with agentls, and its processes with it
