"""Files are read and written off the event loop: while one is slow, the editor's
other requests are still answered.

Each filesystem call is replaced by one that holds its thread until the test
releases it, and the test releases it only after another request went through.
Run on the event loop itself, the call would hold the loop, the other request
could not go through, and the call gives up with an error instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.workspace import Workspace

from agentls.lsp.asking import review
from agentls.lsp.editor import client as editor_client
from agentls.lsp.editor.client import LspEditorClient
from agentls.lsp.files import lsp_workspace as workspace
from agentls.lsp.files.disk import OffLoopDisk
from agentls.lsp.files.lsp_workspace import LspWorkspace
from agentls.lsp.lifecycle import refresh_configuration
from agentls.lsp.questions.board import Question
from agentls.lsp.server import AgentServer
from agentls.session.store import SessionStore
from agentls.workspace.lines import LineWindow
from agentls.workspace.local import LocalWorkspace
from tests.unit.helpers import one_session_twice

from .fake_editor import Emitted, FakeEditor

T = TypeVar("T")
HOLD_SECONDS = 30.0  # only reached when the loop is blocked: then the test fails


class SlowCall:
    """A filesystem call that waits on its thread until the test releases it."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[threading.Thread] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.threads.append(threading.current_thread())
        self.entered.set()
        if not self.release.wait(HOLD_SECONDS):
            raise AssertionError("never released: the call held the event loop")
        return self.real(*args, **kwargs)


async def another_request(editor: FakeEditor) -> str | None:
    """What an editor's agentls.answer does: a question asked and answered on the loop."""
    emitted = Emitted()
    question = Question("q-1", "approval", "x", "x", [("deny", "Deny: x")], "s1")
    asking = asyncio.ensure_future(editor.questions.ask(question, HOLD_SECONDS, emitted))
    await emitted.wait_for("question")
    editor.questions.answer("q-1", "deny")
    return await asking


async def while_slow(slow: SlowCall, work: Awaitable[T]) -> T:
    task = asyncio.ensure_future(work)
    assert await asyncio.to_thread(slow.entered.wait, HOLD_SECONDS)
    assert await another_request(FakeEditor()) == "deny"
    assert not task.done()  # the slow call was still going on meanwhile
    slow.release.set()
    result = await task
    assert threading.main_thread() not in slow.threads
    return result


async def test_writing_a_diff(monkeypatch: Any, tmp_path: Path) -> None:
    slow = SlowCall(review.write_diff)
    monkeypatch.setattr(review, "write_diff", slow)
    editor = FakeEditor(state_dir=tmp_path)
    uri, shown = await while_slow(slow, review.show_diff(editor, "a.py", "a\n", "b\n"))
    assert shown and Path(uri.removeprefix("file://")).read_text().endswith("+b\n")


async def test_reading_a_closed_document(monkeypatch: Any, tmp_path: Path) -> None:
    path = tmp_path / "closed.py"
    path.write_text("# agentls: add tests\nx = 1\n")
    slow = SlowCall(editor_client.read_closed_lines)
    monkeypatch.setattr(editor_client, "read_closed_lines", slow)
    server: Any = SimpleNamespace(workspace=Workspace(None))
    editor = LspEditorClient(server, settings=lambda: None, state_dir=lambda: tmp_path)  # type: ignore[arg-type, return-value]
    lines = await while_slow(slow, editor.document_lines(path.as_uri()))
    assert lines == ["# agentls: add tests\n", "x = 1\n"]


async def test_an_open_document_is_read_from_its_buffer(tmp_path: Path) -> None:
    server: Any = SimpleNamespace(workspace=Workspace(None))
    uri = (tmp_path / "open.py").as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text="unsaved\n")
    server.workspace.put_text_document(item)
    editor = LspEditorClient(server, settings=lambda: None, state_dir=lambda: tmp_path)  # type: ignore[arg-type, return-value]
    assert list(await editor.document_lines(uri)) == ["unsaved\n"]
    assert list(await editor.document_lines((tmp_path / "missing.py").as_uri())) == []


async def test_finding_unsaved_buffers(monkeypatch: Any, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("on disk\n")
    slow = SlowCall(workspace._not_on_disk)
    monkeypatch.setattr(workspace, "_not_on_disk", slow)
    editor = FakeEditor()
    editor.documents = Workspace(None)
    uri = (tmp_path / "a.py").as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="python", version=2, text="in the buffer\n")
    editor.documents.put_text_document(item)
    assert await while_slow(slow, LspWorkspace(editor, tmp_path).unsaved_paths()) == ["a.py"]


async def test_reading_the_settings_files(
    monkeypatch: Any, isolated_state: Path, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    (root / ".agentls").mkdir(parents=True)
    (root / ".agentls" / "settings.json").write_text(json.dumps({"maxTurns": 3}))
    server = AgentServer(SessionStore(isolated_state))
    server.editor = FakeEditor()  # type: ignore[assignment]
    server.editor.offers_configuration = lambda: False  # type: ignore[attr-defined]
    await refresh_configuration(server)
    manager = server.manager
    slow = SlowCall(manager.load_settings)
    monkeypatch.setattr(manager, "load_settings", slow)
    settings = await while_slow(slow, server.settings_for_async(root))
    assert settings.limits.max_turns == 3


def slowed(monkeypatch: Any, name: str) -> SlowCall:
    """LocalWorkspace's coroutine ``name``, held on its thread when it runs."""
    slow = SlowCall(lambda: None)
    real = getattr(LocalWorkspace, name)

    async def held(self: LocalWorkspace, *args: Any, **kwargs: Any) -> Any:
        slow()
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(LocalWorkspace, name, held)
    return slow


async def test_writing_a_closed_file(monkeypatch: Any, tmp_path: Path) -> None:
    slow = slowed(monkeypatch, "write")
    disk = OffLoopDisk(tmp_path)
    outcome = await while_slow(
        slow, disk.write("new.txt", "hi\n", expected_version=None, create=True)
    )
    assert outcome.applied and (tmp_path / "new.txt").read_text() == "hi\n"


async def test_reading_a_closed_file_for_a_tool(monkeypatch: Any, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("on disk\n")
    slow = slowed(monkeypatch, "read")
    editor = FakeEditor()
    editor.documents = Workspace(None)
    snapshot = await while_slow(slow, LspWorkspace(editor, tmp_path).read("a.py"))
    assert snapshot.data == b"on disk\n"


async def test_reading_a_window_of_a_closed_file_for_read_file(
    monkeypatch: Any, tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    slow = slowed(monkeypatch, "read_lines")
    editor = FakeEditor()
    editor.documents = Workspace(None)
    window = LineWindow(start=2, limit=1, max_chars=1000, line_chars=100)
    part = await while_slow(slow, LspWorkspace(editor, tmp_path).read_lines("a.py", window))
    assert [line.text for line in part.lines] == ["two"] and part.total_lines == 3


async def test_an_open_buffers_window_is_its_unsaved_text(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("on disk\n")
    editor = FakeEditor()
    editor.documents = Workspace(None)
    uri = (tmp_path / "a.py").as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="python", version=7, text="x\ny\nz\n")
    editor.documents.put_text_document(item)
    ws = LspWorkspace(editor, tmp_path)
    window = LineWindow(start=2, limit=5, max_chars=1000, line_chars=100)
    part = await ws.read_lines("a.py", window)
    assert [line.text for line in part.lines] == ["y", "z"] and part.total_lines == 3
    assert part.version == "buffer:7" == await ws.version("a.py")


async def test_the_disk_off_the_loop_does_what_the_disk_does(tmp_path: Path) -> None:
    disk = OffLoopDisk(tmp_path)
    written = await disk.write("a.txt", "one\n", expected_version=None, create=True)
    assert await disk.version("a.txt") == written.version
    assert (await disk.read("a.txt")).data == await disk.current_bytes("a.txt") == b"one\n"
    await disk.restore_files([("a.txt", b"two\n"), ("b.txt", b"three\n")])
    assert (tmp_path / "a.txt").read_text() == "two\n" and (tmp_path / "b.txt").exists()
    await disk.restore_files([("b.txt", None)])
    assert await disk.current_bytes("b.txt") is None and await disk.version("b.txt") is None


async def test_a_cancelled_run_ends_after_its_file_call(monkeypatch: Any, tmp_path: Path) -> None:
    slow = slowed(monkeypatch, "write")
    disk = OffLoopDisk(tmp_path)
    task = asyncio.ensure_future(disk.write("a.txt", "x\n", expected_version=None, create=True))
    assert await asyncio.to_thread(slow.entered.wait, HOLD_SECONDS)
    task.cancel()
    assert await another_request(FakeEditor()) == "deny"
    assert not task.done()  # held by the write still going on
    slow.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (tmp_path / "a.txt").read_text() == "x\n"  # nothing lands after the cancel


async def test_probing_the_sandbox_at_start(monkeypatch: Any, isolated_state: Path) -> None:
    from agentls.lsp import editor_settings as face_settings

    slow = SlowCall(lambda sandbox: "no bubblewrap here")
    monkeypatch.setattr(face_settings, "startup_warning", slow)
    server = AgentServer(SessionStore(isolated_state))
    editor = FakeEditor()
    server.editor = editor  # type: ignore[assignment]
    editor.offers_configuration = lambda: False  # type: ignore[attr-defined]
    await while_slow(slow, refresh_configuration(server))
    assert editor.told == ["agentls: no bubblewrap here"]


async def test_a_checkpoint_snapshot(monkeypatch: Any, tmp_path: Path) -> None:
    from agentls.checkpoints.gitstore import GitStore

    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    store = GitStore(tmp_path / "state", root)
    slow = SlowCall(store._git)  # every git process of the snapshot runs through it
    monkeypatch.setattr(store, "_git", slow)
    commit = await while_slow(slow, store.snapshot("s/1/before"))
    assert (await store.read(commit, "a.py")) == b"x = 1\n"
    await store.aclose()


async def test_opening_a_session(monkeypatch: Any, isolated_state: Path, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    server = AgentServer(SessionStore(isolated_state))
    editor = FakeEditor()
    editor.documents = Workspace(None)
    server.editor = editor  # type: ignore[assignment]
    editor.offers_configuration = lambda: False  # type: ignore[attr-defined]
    server.init_options = {"model": "scripted:demo"}
    await refresh_configuration(server)
    sessions = server.manager.store
    slow = SlowCall(sessions.create)
    monkeypatch.setattr(sessions, "create", slow)
    conversation = await while_slow(slow, server.conversation_for_async(None, root))
    workspace = conversation.workspace
    assert isinstance(workspace, LspWorkspace)
    assert workspace.link.session_id == conversation.session_id
    assert workspace.link.policy is conversation
    assert await server.conversation_for_async(conversation.session_id, root) is conversation
    server.manager.close()


async def test_resuming_a_session_reads_its_log_off_the_loop(
    monkeypatch: Any, isolated_state: Path, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    first = AgentServer(SessionStore(isolated_state))
    first.editor = FakeEditor()  # type: ignore[assignment]
    first.editor.offers_configuration = lambda: False  # type: ignore[attr-defined]
    first.init_options = {"model": "scripted:demo"}
    await refresh_configuration(first)
    session_id = (await first.conversation_for_async(None, root)).session_id
    first.manager.close()
    server = AgentServer(SessionStore(isolated_state))
    server.editor = FakeEditor()  # type: ignore[assignment]
    server.editor.offers_configuration = lambda: False  # type: ignore[attr-defined]
    server.init_options = {"model": "scripted:demo"}
    await refresh_configuration(server)
    sessions = server.manager.store
    slow = SlowCall(sessions.open)
    monkeypatch.setattr(sessions, "open", slow)
    resumed = await while_slow(slow, server.conversation_for_async(session_id, root))
    assert resumed.session_id == session_id
    server.manager.close()


async def test_a_tool_reading_a_file_without_the_editor(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "a.py").write_text("on disk\n")
    disk = LocalWorkspace(tmp_path)
    slow = SlowCall(disk._read)
    monkeypatch.setattr(disk, "_read", slow)
    assert (await while_slow(slow, disk.read("a.py"))).data == b"on disk\n"


async def test_listing_checks_its_folder_off_the_loop(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    disk = LocalWorkspace(tmp_path, use_ripgrep=False)
    slow = SlowCall(disk._existing)
    monkeypatch.setattr(disk, "_existing", slow)
    listing = await while_slow(slow, disk.list_files("pkg", None, 10))
    assert "pkg/a.py" in str(listing)


async def test_a_resumed_session_reads_its_checkpoints_off_the_loop(
    monkeypatch: Any, tmp_path: Path
) -> None:
    from agentls.checkpoints.gitstore import GitStore
    from agentls.conversation import checkpointing
    from agentls.conversation.settings import CheckpointSettings
    from agentls.runtime.registry import ToolRegistry
    from agentls.session import events as ev
    from agentls.tools import BUILTIN_TOOLS
    from agentls.workspace.interface import ToolContext

    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    session_id, log = SessionStore(tmp_path / "state").create(root, "scripted:test")
    store = GitStore(tmp_path / "state", root)
    before = await store.snapshot(f"{session_id}/4/before")
    log.append(ev.CheckpointStarted(run="run-1", turn=1, number=4, before=before))  # then a crash
    workspace = LocalWorkspace(root)
    checkpointer = checkpointing.Checkpointer(
        session_id=session_id, store=store, session_log=log, workspace=workspace,
        registry=ToolRegistry(BUILTIN_TOOLS), context=ToolContext(workspace),
        settings=CheckpointSettings(), resumed=True,
    )  # fmt: skip
    slow = SlowCall(checkpointing.read_events)
    monkeypatch.setattr(checkpointing, "read_events", slow)
    try:
        await while_slow(slow, checkpointer.recover())
        (closed,) = checkpointing.checkpoint_events(log.path)
        assert (closed.number, closed.interrupted) == (4, True)
    finally:
        await checkpointer.close()
        log.close()


async def test_listing_the_sessions_reads_their_files_off_the_loop(
    monkeypatch: Any, tmp_path: Path
) -> None:
    from agentls.lsp.commands import sessions, show_transcript

    root = tmp_path / "ws"
    root.mkdir()
    store = SessionStore(tmp_path / "state")
    session_id, log = store.create(root, "scripted:demo")
    log.close()
    server = AgentServer(store)

    async def the_root() -> list[Path]:
        return [root]

    server.roots_async = the_root  # type: ignore[method-assign]
    handlers: dict[str, Any] = {}
    registry = SimpleNamespace(
        command=lambda name: lambda handler: handlers.setdefault(name, handler)
    )
    sessions.register(registry)  # type: ignore[arg-type]
    show_transcript.register(registry)  # type: ignore[arg-type]
    real_list = store.list
    slow = SlowCall(real_list)
    monkeypatch.setattr(store, "list", slow)
    listed = await while_slow(slow, handlers[sessions.SESSIONS](server))
    assert [item["sessionId"] for item in listed] == [session_id]

    # no id: the newest session, found the same way
    shown = handlers[show_transcript.SHOW_TRANSCRIPT]
    slow = SlowCall(real_list)
    monkeypatch.setattr(store, "list", slow)
    monkeypatch.setattr(server, "show_document", _not_shown)
    assert (await while_slow(slow, shown(server)))["sessionId"] == session_id


async def _not_shown(uri: str) -> bool:
    return False


async def test_catching_up_with_another_process_reads_the_log_off_the_loop(
    monkeypatch: Any, tmp_path: Path
) -> None:
    from agentls.conversation import one_session as manager

    first, second, provider = one_session_twice(tmp_path, ["second done"])
    assert (await first.ask("first")).text == "first done"  # the second is now behind
    slow = SlowCall(manager.read_events)
    monkeypatch.setattr(manager, "read_events", slow)
    handle = await while_slow(slow, second.start("second"))
    assert (await handle.result()).text == "second done"
    assert provider.calls[0].message_count == 3  # the first ask's prompt and answer, then this
    first.close()
    second.close()


async def test_undoing_a_session_not_open_here_takes_its_lock_off_the_loop(
    monkeypatch: Any, isolated_state: Path, tmp_path: Path
) -> None:
    from agentls.lsp.commands import undo as undo_command
    from agentls.session.lock import SessionClaim, read_holder

    root = tmp_path / "ws"
    root.mkdir()
    store = SessionStore(isolated_state)
    session_id, log = store.create(root, "scripted:demo")
    log.close()
    server = AgentServer(store)
    server.editor = FakeEditor()  # type: ignore[assignment]
    claims: list[SessionClaim] = []

    def slow_claim(name: str, face: str) -> SessionClaim:
        claim = SessionClaim(store.path_for(name), face)
        monkeypatch.setattr(claim, "acquire", slow)
        claims.append(claim)
        return claim

    slow = SlowCall(lambda: SessionClaim.acquire(claims[0]))
    monkeypatch.setattr(store, "claim", slow_claim)
    refused = while_slow(slow, undo_command.undo_session(server, session_id, None))
    with pytest.raises(JsonRpcInvalidParams) as refusal:
        await refused
    assert "changed no files, so there is nothing to undo" in str(refusal.value)
    assert read_holder(claims[0].path) is None  # let go after the refusal


async def test_choosing_the_root_of_an_ask_off_the_loop(monkeypatch: Any, tmp_path: Path) -> None:
    from agentls.lsp import server as server_module

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    server = AgentServer(SessionStore(tmp_path / "state"))
    server.editor = FakeEditor()  # type: ignore[assignment]
    server.protocol._workspace = Workspace(None)  # no folder sent: the file's project
    slow = SlowCall(server_module.choose_root)
    monkeypatch.setattr(server_module, "choose_root", slow)
    uri = (project / "src" / "a.py").as_uri()
    assert await while_slow(slow, server.root_for_async(uri)) == project.resolve()
