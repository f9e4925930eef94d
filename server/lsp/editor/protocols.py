"""The editor as the face's modules see it: what the client can do, how it is asked, its requests.

Questions, approvals, reviews and `LspWorkspace` depend on these Protocols and
never on `server.py`; `editor_client.LspEditorClient` is the implementation
over pygls, and the unit tests use fakes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar, runtime_checkable

from lsprotocol import types

from agentls.lsp.questions.board import Diagnostics, QuestionBoard

if TYPE_CHECKING:  # the conversation stack loads on first use
    from pygls.workspace import Workspace

    from agentls.conversation.settings import FaceSettings, Settings

T = TypeVar("T")
Kind = Literal["approval", "review"]
# "editor": the client previews annotated edits itself; "prompt": showMessageRequest;
# "codeAction": the question waits as code actions and an Information diagnostic.
Route = Literal["editor", "prompt", "codeAction"]


@dataclass(frozen=True)
class PromptReply:
    title: str | None  # the action chosen; None: dismissed, not answered in time, or failed
    failed: bool = False  # an error answer: this editor cannot prompt


class EditorClient(Diagnostics, Protocol):
    """One connected editor: capabilities, routes, and bounded, shielded requests."""

    name: str

    @property
    def settings(self) -> Settings: ...

    @property
    def face(self) -> FaceSettings: ...

    @property
    def questions(self) -> QuestionBoard: ...

    @property
    def documents(self) -> Workspace: ...

    @property
    def documents_changed(self) -> asyncio.Condition: ...

    @property
    def state_dir(self) -> Path: ...

    # --- capabilities and routes ----------------------------------------------

    def creates_files(self) -> bool: ...

    def saves_edits(self) -> bool: ...

    def previews_edits(self) -> bool: ...

    def route(self, kind: Kind) -> Route: ...

    def route_is_fixed(self, kind: Kind) -> bool: ...

    def prompts_failed(self) -> None: ...

    def uses_code_actions(self) -> bool: ...

    # --- requests: each bounded in time; a failure is None, never an error ------

    async def request(
        self, request: Awaitable[T], timeout: float, what: str, *, errors: list[Exception] | None
    ) -> T | None: ...

    async def prompt(
        self, message: str, titles: Sequence[str], timeout: float, what: str
    ) -> PromptReply: ...

    async def show_document(self, uri: str) -> bool: ...

    async def apply_edit(
        self, params: types.ApplyWorkspaceEditParams, timeout: float, what: str
    ) -> types.ApplyWorkspaceEditResult | None: ...

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None: ...

    async def document_lines(self, uri: str) -> Sequence[str]:
        """The buffer's lines when open, else the file's (read off the event loop)."""
        ...


@runtime_checkable
class HasEditor(Protocol):
    """Something that holds the editor client (the server)."""

    @property
    def editor(self) -> EditorClient: ...


def editor_of(holder: EditorClient | HasEditor) -> EditorClient:
    """The editor client itself, also when given what holds it."""
    return holder.editor if isinstance(holder, HasEditor) else holder
