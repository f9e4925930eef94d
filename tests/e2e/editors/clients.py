"""Scripted LSP clients shaped like editors we cannot run here.

`start_client` is `tests.e2e.lsp.editor.start_editor` plus a client name and
capabilities chosen per editor; `helix_answers` makes the prompt fail the way
Helix up to 25.07 does; `RecentCommand` accepts edits the way Kate does;
`SavingEditor` saves as a person does in Kate or Helix and tells when Kate
would show its "modified on disk" bar.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.lsp.editor import Editor, _fix_code_action_union, capabilities


def no_prompts(params: types.ShowMessageRequestParams) -> None:
    """What Helix up to 25.07 answers to window/showMessageRequest."""
    raise JsonRpcMethodNotFound(message="Method not found: window/showMessageRequest")


class RecentCommand:
    """Truthy for two seconds after the person ran a command: Kate's rule for applyEdit."""

    def __init__(self) -> None:
        self.at = -math.inf

    def touch(self) -> None:
        self.at = time.monotonic()

    def forget(self) -> None:
        """As if the person's last command were long past."""
        self.at = -math.inf

    def __bool__(self) -> bool:
        return time.monotonic() - self.at < 2.0


def accept_edits_like_kate(editor: Editor) -> RecentCommand:
    recent = RecentCommand()
    command = editor.command

    async def touched(name: str, *arguments: Any) -> Any:
        recent.touch()
        return await command(name, *arguments)

    editor.command = touched  # type: ignore[method-assign]
    editor.apply_edits = recent  # type: ignore[assignment]
    return recent


class SavingEditor:
    """A plain editor's view of the files it has open (Kate's, Helix's): the
    digest of each at load or at its own save. A file whose digest differs
    from that one is "modified on disk" (KTextEditor compares digests, so a
    write of the same bytes is not)."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.digests = {uri: _digest(Path(uri.removeprefix("file://"))) for uri in editor.buffers}

    def open(self, rel: str) -> str:
        uri = self.editor.open(rel)
        self.digests[uri] = _digest(self.editor.root / rel)
        return uri

    def save(self, uri: str) -> None:
        """Ctrl+S: the buffer to disk, then didSave."""
        path = Path(uri.removeprefix("file://"))
        path.write_text(self.editor.text(uri))
        self.digests[uri] = _digest(path)
        self.editor.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def modified_on_disk(self, uri: str) -> bool:
        return _digest(Path(uri.removeprefix("file://"))) != self.digests[uri]

    async def save_when_asked(self, uri: str, timeout: float = 20.0) -> str:
        """The person reads agentls's one line asking to save, and saves."""
        said = await self.editor.wait_for_message("save it to go on", timeout)
        assert not self.modified_on_disk(uri)  # nothing wrote the file behind Kate's back
        self.save(uri)
        return said


def _digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()


async def start_client(
    root: Path,
    env: dict[str, str],
    *,
    name: str | None = "test editor",
    caps: types.ClientCapabilities | None = None,
    init_options: Any = None,
) -> Editor:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "agentls", "serve"],
        server_env={**os.environ, **env},
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    _fix_code_action_union(client)
    editor = Editor(client, root)
    options = {"model": "anthropic:claude-sonnet-4-5", **(init_options or {})}
    editor.initialized = await client.initialize_session(  # type: ignore[attr-defined]
        types.InitializeParams(
            capabilities=caps or capabilities(),
            client_info=types.ClientInfo(name=name) if name is not None else None,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=options,
        )
    )
    return editor


async def code_actions(editor: Editor, uri: str, line: int = 0) -> list[types.CodeAction]:
    """What the person sees on asking for code actions at a line (with its diagnostics)."""
    diagnostics = [
        d
        for d in editor.client.diagnostics.get(uri, [])
        if d.range.start.line <= line <= d.range.end.line
    ]
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    return [a for a in actions or [] if isinstance(a, types.CodeAction)]


async def wait_for_actions(
    editor: Editor, uri: str, prefix: str, timeout: float = 20.0
) -> list[types.CodeAction]:
    """Poll code actions until some title starts with ``prefix``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        actions = await code_actions(editor, uri)
        if any(a.title.startswith(prefix) for a in actions):
            # once more, now that the question's diagnostic has surely arrived too
            return await code_actions(editor, uri)
        if loop.time() > deadline:
            raise AssertionError(f"no {prefix!r} action; got {[a.title for a in actions]}")
        await asyncio.sleep(0.02)


async def pick(editor: Editor, action: types.CodeAction) -> Any:
    """The person picks a code action: its command runs (as every editor does it)."""
    assert action.command is not None
    return await editor.command(action.command.command, *(action.command.arguments or []))


def titled(actions: list[types.CodeAction], prefix: str) -> types.CodeAction:
    (found,) = [a for a in actions if a.title.startswith(prefix)]
    return found
