"""A scripted client shaped like Kate 22.12's LSP client, set up by the shipped
`editors/kate/lspclient.json`.

What it copies from Kate (read in its lspclientservermanager.cpp,
lspclientpluginview.cpp and lspclientsymbolview.cpp, and seen on the wire
with Kate itself under Xvfb):

- the `initialize` it sends: these capabilities, no `clientInfo`, no
  `workspace` capabilities (neither `applyEdit` nor `configuration`);
- one server per document: a document's language id is the first server key
  (in sorted order, as a QJsonObject keeps them) whose `highlightingModeRegex`
  finds its highlighting mode, over Kate's own defaults; a `use` entry hands
  the document to another entry's server, under its own language id. Only the
  documents that end at agentls's entry are opened on agentls;
- every document it opens is asked for `textDocument/documentSymbol` (the
  symbol outline), whatever the server's capabilities say;
- code actions asked at the cursor cover the whole line (from its start to
  the next line's) when nothing is selected;
- `workspace/applyEdit` applied only within 2 s of the person's command, and
  saves only when the person saves (`SavingEditor`).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.editors.clients import RecentCommand, SavingEditor, accept_edits_like_kate
from tests.e2e.editors.real_editor import EDITORS
from tests.e2e.lsp.editor import Editor

SHIPPED = EDITORS / "kate" / "lspclient.json"
# Kate's highlighting mode per file name ending (its syntax definitions).
MODES = {".py": "Python", ".md": "Markdown", ".txt": "Normal", ".rs": "Rust", ".sh": "Bash"}
# A few of the servers Kate 22.12's own addons/lspclient/settings.json defines.
KATE_DEFAULTS: dict[str, dict[str, Any]] = {
    "bash": {"command": ["bash-language-server", "start"], "highlightingModeRegex": "^Bash$"},
    "python": {"command": ["pylsp", "--check-parent-process"], "highlightingModeRegex": "^Python$"},
    "rust": {"command": ["rust-analyzer"], "highlightingModeRegex": "^Rust$"},
}


def capabilities() -> types.ClientCapabilities:
    """What Kate 22.12 declares in `initialize` (seen on the wire)."""
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=["quickfix", "refactor", "source"]
                    )
                )
            ),
            document_symbol=types.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=True
            ),
            hover=types.HoverClientCapabilities(content_format=["markdown", "plaintext"]),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True
            ),
        ),
        window=types.WindowClientCapabilities(work_done_progress=True),
    )


def servers_of(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The user's servers merged over Kate's defaults, as Kate merges them."""
    merged = {name: dict(entry) for name, entry in KATE_DEFAULTS.items()}
    for name, entry in config["servers"].items():
        merged[name] = {**merged.get(name, {}), **entry}
    return merged


def server_for(servers: dict[str, dict[str, Any]], mode: str) -> tuple[str, str] | None:
    """(the language id Kate sends, the entry whose server it starts) for a mode."""
    for name in sorted(servers):
        regex = servers[name].get("highlightingModeRegex") or name
        if re.search(regex, mode, re.IGNORECASE):
            break
    else:
        return None
    target, seen = name, {name}
    while (use := servers[target].get("use")) and use not in seen and use in servers:
        seen.add(use)
        target = use
    return name, target


class Kate:
    """Kate's view of agentls: the documents it opens there, and the person's actions."""

    def __init__(self, editor: Editor, config: dict[str, Any]) -> None:
        self.editor = editor
        self.servers = servers_of(config)
        self.recent: RecentCommand = accept_edits_like_kate(editor)
        self.saving = SavingEditor(editor)
        self.outlines: dict[str, Any] = {}  # documentSymbol answers, by uri
        editor.save_edits = False  # Kate leaves applied edits unsaved

    def attached(self, rel: str) -> bool:
        found = server_for(self.servers, MODES[Path(rel).suffix])
        return found is not None and found[1] == "agentls"

    async def open(self, rel: str) -> str | None:
        """Open a file in Kate; its uri if Kate gives it to agentls, else None."""
        found = server_for(self.servers, MODES[Path(rel).suffix])
        if found is None or found[1] != "agentls":
            return None
        path = self.editor.root / rel
        uri, text = path.as_uri(), path.read_text()
        self.editor.buffers[uri] = (0, text)
        self.saving.digests[uri] = hashlib.sha1(path.read_bytes()).hexdigest()
        self.editor.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=found[0], version=0, text=text
                )
            )
        )
        self.outlines[uri] = await self.editor.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return uri

    async def code_actions(
        self, uri: str, line: int, selection: types.Range | None = None
    ) -> list[types.CodeAction]:
        """Alt+Return: the actions for the selection, or for the whole line."""
        range_ = selection or types.Range(types.Position(line, 0), types.Position(line + 1, 0))
        diagnostics = [
            d
            for d in self.editor.client.diagnostics.get(uri, [])
            if range_.start.line <= d.range.start.line <= range_.end.line
        ]
        actions = await self.editor.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=range_,
                context=types.CodeActionContext(diagnostics=diagnostics),
            )
        )
        return [a for a in actions or [] if isinstance(a, types.CodeAction)]

    def type_line(self, uri: str, text: str) -> int:
        """The person types a line at the end of the document; its number."""
        before = self.editor.text(uri)
        self.editor.change(uri, before + text + "\n")
        return before.count("\n")


def shipped_config() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SHIPPED.read_text())
    return loaded


def with_model(config: dict[str, Any], model: str) -> dict[str, Any]:
    """The shipped config with another model, as a person would edit it."""
    copy = json.loads(json.dumps(config))
    entry = copy["servers"]["agentls"]
    entry["initializationOptions"]["model"] = model
    entry["settings"]["agentls"]["model"] = model
    return copy
