"""The editor as each of the face's modules sees it: one small Protocol per caller.

Asking (`Asks`, `AsksApprovals`), reviews (`Reviews`, `ShowsDocuments`), the
questions' code actions (`OffersQuestions`), saving through the editor
(`SavesThroughEditor`), a change of several files (`AppliesEdits`) and
`LspWorkspace` (`EditorClient`, the widest) each take only what they use, and
never `server.py`: callers hand them the server's `editor`. `client.LspEditorClient`
is the implementation over pygls; the unit tests use fakes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from lsprotocol import types

from agentls.lsp.questions.board import QuestionBoard

if TYPE_CHECKING:  # the conversation stack loads on first use
    from pygls.workspace import Workspace

    from agentls.conversation.settings import Settings

Kind = Literal["approval", "review"]
# "editor": the client previews annotated edits itself; "prompt": showMessageRequest;
# "codeAction": the question waits as code actions and an Information diagnostic.
Route = Literal["editor", "prompt", "codeAction"]


@dataclass(frozen=True)
class PromptReply:
    title: str | None  # the action chosen; None: dismissed, not answered in time, or failed
    failed: bool = False  # an error answer: this editor cannot prompt


class KnowsSettings(Protocol):
    @property
    def settings(self) -> Settings: ...


class Asks(KnowsSettings, Protocol):
    """Asking the person (`asking/ask_person.py`): the route, a prompt, the question board."""

    @property
    def questions(self) -> QuestionBoard: ...

    def route(self, kind: Kind) -> Route: ...

    def route_is_fixed(self, kind: Kind) -> bool: ...

    def prompts_failed(self) -> None: ...

    async def prompt(
        self, message: str, titles: Sequence[str], timeout: float, what: str
    ) -> PromptReply: ...


class AsksApprovals(Asks, Protocol):
    """An approval (`asking/approvals.py`): asked, and shown on the document touched last."""

    last_uri: str | None


class ShowsDocuments(Protocol):
    """A diff written under the state folder and opened where the client can (review.py)."""

    @property
    def state_dir(self) -> Path: ...

    def can_show_documents(self) -> bool: ...

    async def show_document(self, uri: str) -> bool: ...


class Reviews(Asks, ShowsDocuments, Protocol):
    """An edit review: asked, with its diff to show (`asking/review.py`)."""


class OffersQuestions(Protocol):
    """The waiting questions offered as code actions (`questions/actions.py`)."""

    @property
    def questions(self) -> QuestionBoard: ...

    def can_show_documents(self) -> bool: ...

    def uses_code_actions(self) -> bool: ...

    async def document_lines(self, uri: str) -> Sequence[str]:
        """The buffer's lines when open, else the file's (read off the event loop)."""
        ...


class HoldsDocuments(Protocol):
    @property
    def documents(self) -> Workspace: ...


class SavesThroughEditor(KnowsSettings, HoldsDocuments, Protocol):
    """An accepted edit on disk through the editor's own save (`files/disk_sync.py`)."""

    def saves_edits(self) -> bool: ...

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None: ...


class AppliesEdits(Reviews, SavesThroughEditor, Protocol):
    """A change of several files: reviewed once, sent as one applyEdit, then saved
    (`files/batch_edits.py`)."""

    async def apply_edit(
        self, params: types.ApplyWorkspaceEditParams, timeout: float, what: str
    ) -> types.ApplyWorkspaceEditResult | None: ...


class EditorClient(AppliesEdits, Protocol):
    """The editor `LspWorkspace` writes through: every part above, and the documents'
    changes an applied edit waits for."""

    @property
    def documents_changed(self) -> asyncio.Condition: ...

    def creates_files(self) -> bool: ...
