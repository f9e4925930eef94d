"""A scriptable editor for end-to-end tests: a real pytest-lsp client over stdio
that keeps buffers, applies (or rejects) edits, answers prompts and records events."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from agentls.workspace.hunks import split_lines

Answer = str | None | Callable[[types.ShowMessageRequestParams], Any]


def capabilities(
    *,
    annotations: bool = False,
    progress: bool = True,
    show_document: bool = True,
    saves_edits: bool = True,
) -> types.ClientCapabilities:
    """`saves_edits`: like the agentls client scripts, the editor saves what it
    applied (pair it with `Editor.save_edits`); False is a plain LSP client."""
    return types.ClientCapabilities(
        experimental={"agentls": {"savesEdits": True}} if saves_edits else None,
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            configuration=True,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(),
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[types.ResourceOperationKind.Create],
                change_annotation_support=(
                    types.ChangeAnnotationsSupportOptions(groups_on_label=True)
                    if annotations
                    else None
                ),
            ),
        ),
        window=types.WindowClientCapabilities(
            work_done_progress=progress,
            show_message=types.ShowMessageRequestClientCapabilities(
                message_action_item=types.ClientShowMessageActionItemOptions(
                    additional_properties_support=False
                )
            ),
            show_document=types.ShowDocumentClientCapabilities(support=True)
            if show_document
            else None,
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            code_action=types.CodeActionClientCapabilities(),
        ),
    )


async def plain_client(open_editor: Callable[..., Any]) -> Editor:
    """An LSP client without an agentls script: it applies edits and saves nothing."""
    editor: Editor = await open_editor(caps=capabilities(saves_edits=False))
    editor.save_edits = False
    return editor


class Editor:
    """Buffers by uri; edit and prompt policies the test switches as it goes."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.buffers: dict[str, tuple[int, str]] = {}
        self.events: list[dict[str, Any]] = []
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.prompts: list[types.ShowMessageRequestParams] = []
        self.answers: list[Answer] = []  # consumed in order; empty -> None
        self.apply_edits = True
        self.save_edits = True  # write applied edits to disk, as a person saving would
        # What the editor does to an edited buffer right after (a formatter, say).
        self.after_edit: Callable[[str], str] | None = None
        self.finished = asyncio.Event()
        self._install()

    def _install(self) -> None:
        client = self.client

        @client.feature("agentls/event")
        def on_event(ls: LanguageClient, params: Any) -> None:
            event = _plain(params)
            self.events.append(event)
            if event.get("kind") == "run_finished":
                self.finished.set()

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        async def on_prompt(
            ls: LanguageClient, params: types.ShowMessageRequestParams
        ) -> types.MessageActionItem | None:
            self.prompts.append(params)
            answer = self.answers.pop(0) if self.answers else None
            if callable(answer):
                answer = answer(params)
                if asyncio.iscoroutine(answer):
                    answer = await answer
            return None if answer is None else types.MessageActionItem(answer)

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def on_edit(
            ls: LanguageClient, params: types.ApplyWorkspaceEditParams
        ) -> types.ApplyWorkspaceEditResult:
            self.edits.append(params)
            if not self.apply_edits:
                return types.ApplyWorkspaceEditResult(applied=False)
            for change in params.edit.document_changes or []:
                if isinstance(change, types.CreateFile):
                    path = Path(change.uri.removeprefix("file://"))
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.touch()
                elif isinstance(change, types.TextDocumentEdit):
                    self._apply(change)
            return types.ApplyWorkspaceEditResult(applied=True)

    def _apply(self, change: types.TextDocumentEdit) -> None:
        uri = change.text_document.uri
        path = Path(uri.removeprefix("file://"))
        _, text = self.buffers.get(uri, (0, path.read_text() if path.exists() else ""))
        lines = split_lines(text)
        for edit in sorted(change.edits, key=lambda e: e.range.start.line, reverse=True):
            start = _offset(lines, edit.range.start)
            end = _offset(lines, edit.range.end)
            text = text[:start] + edit.new_text + text[end:]
            lines = split_lines(text)
        if self.after_edit is not None:
            text = self.after_edit(text)
        if uri in self.buffers:
            self.change(uri, text)
        if self.save_edits:
            path.write_text(text)

    # --- the person's actions ------------------------------------------------

    def open(self, rel: str, text: str | None = None) -> str:
        path = self.root / rel
        uri = path.as_uri()
        text = path.read_text() if text is None else text
        self.buffers[uri] = (1, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def change(self, uri: str, text: str) -> None:
        version = self.buffers[uri][0] + 1
        self.buffers[uri] = (version, text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def text(self, uri: str) -> str:
        return self.buffers[uri][1]

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )

    async def ask(self, prompt: str, **extra: Any) -> Any:
        return await self.command("agentls.ask", {"prompt": prompt, **extra})

    async def wait_finished(self, timeout: float = 30.0) -> dict[str, Any]:
        await asyncio.wait_for(self.finished.wait(), timeout)
        self.finished.clear()
        return next(e for e in reversed(self.events) if e["kind"] == "run_finished")

    async def wait_for_event(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = [e for e in self.events if e["kind"] == kind]
            if found:
                return found[-1]
            if loop.time() > deadline:
                raise AssertionError(f"no {kind} event; got {[e['kind'] for e in self.events]}")
            await asyncio.sleep(0.01)

    async def wait_progress_end(self, timeout: float = 10.0) -> list[Any]:
        """The reports of the one progress token, once it has ended."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            reports = list(self.client.progress_reports.values())
            if reports and reports[-1] and reports[-1][-1].kind == "end":
                return reports[-1]
            if loop.time() > deadline:
                raise AssertionError(f"progress did not end: {reports}")
            await asyncio.sleep(0.01)

    async def wait_for_message(self, needle: str, timeout: float = 10.0) -> str:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for message in self.client.messages:
                if needle in message.message:
                    return message.message
            if loop.time() > deadline:
                shown = [m.message for m in self.client.messages]
                raise AssertionError(f"no message with {needle!r}: {shown}")
            await asyncio.sleep(0.01)

    def kinds(self) -> list[str]:
        return [e["kind"] for e in self.events]


def _fix_code_action_union(client: LanguageClient) -> None:
    """lsprotocol's client-side converter reads every CodeAction that carries a
    command as a Command; tell the two apart the way the spec does (a Command's
    `command` is a string)."""
    converter = client.protocol._converter

    def structure(obj: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(types.Command | types.CodeAction, structure)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007


def _offset(lines: list[str], position: types.Position) -> int:
    if position.line >= len(lines):
        return sum(len(line) for line in lines)
    return sum(len(line) for line in lines[: position.line]) + position.character


def _plain(value: Any) -> Any:
    """pygls hands untyped params over as namedtuple-like objects."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


async def start_editor(
    root: Path,
    env: dict[str, str],
    *,
    caps: types.ClientCapabilities | None = None,
    init_options: Any = None,
    configuration: dict[str, Any] | None = None,
    prepare: Callable[[LanguageClient], None] | None = None,
) -> Editor:
    """``prepare`` changes the client before it sends ``initialize``."""
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "agentls", "serve"],
        server_env={**os.environ, **env},
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    if configuration is not None:
        client.set_configuration(configuration, section="agentls")
    _fix_code_action_union(client)
    if prepare is not None:
        prepare(client)
    editor = Editor(client, root)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps or capabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=init_options,
        )
    )
    return editor
