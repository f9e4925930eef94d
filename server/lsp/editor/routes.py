"""Which way a question goes to the person, from the client's capabilities and the settings.

`approvalsVia` and `reviewVia` name a route, or "auto": then an editor that
previews annotated edits reviews them itself, and every other question is a
showMessageRequest prompt until the editor answers a prompt with an error,
after which questions wait as code actions.
"""

from __future__ import annotations

from lsprotocol import types

from agentls.lsp.editor.protocols import Route

# Clients that declare changeAnnotationSupport but apply annotated edits without
# showing a preview: their edits are reviewed as if they had no preview.
ANNOTATIONS_WITHOUT_PREVIEW = frozenset({"Sublime Text LSP"})


def approvals_route(via: str, cannot_prompt: bool) -> Route:
    if via == "auto":
        return "codeAction" if cannot_prompt else "prompt"
    return "codeAction" if via == "codeAction" else "prompt"


def review_route(via: str, previews_edits: bool, cannot_prompt: bool) -> Route:
    if via == "editor" or (via == "auto" and previews_edits):
        return "editor"
    return approvals_route(via, cannot_prompt)


def previews_edits(capabilities: types.ClientCapabilities, client_name: str) -> bool:
    """The client shows annotated edits for confirmation before applying them."""
    edit = _workspace_edit(capabilities)
    declared = bool(edit and edit.document_changes and edit.change_annotation_support)
    return declared and client_name not in ANNOTATIONS_WITHOUT_PREVIEW


def creates_files(capabilities: types.ClientCapabilities) -> bool:
    """Whether CreateFile may be sent (resourceOperations includes create)."""
    edit = _workspace_edit(capabilities)
    operations = (edit.resource_operations if edit is not None else None) or []
    return types.ResourceOperationKind.Create in operations


def shows_documents(capabilities: types.ClientCapabilities) -> bool:
    window = capabilities.window
    return bool(window and window.show_document and window.show_document.support)


def saves_edits(capabilities: types.ClientCapabilities) -> bool:
    """The client's agentls script saves the buffers an accepted edit touched
    (experimental capability `agentls.savesEdits`)."""
    experimental = capabilities.experimental
    mine = experimental.get("agentls") if isinstance(experimental, dict) else None
    return isinstance(mine, dict) and mine.get("savesEdits") is True


def _workspace_edit(
    capabilities: types.ClientCapabilities,
) -> types.WorkspaceEditClientCapabilities | None:
    workspace = capabilities.workspace
    return workspace.workspace_edit if workspace is not None else None
