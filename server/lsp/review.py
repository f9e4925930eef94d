"""Asking a person to review an edit where the editor has no preview of its own.

`Apply`, `Show diff`, `Reject`: Show diff opens a unified diff with
window/showDocument and asks again; no answer, an error or a dismissed prompt
count as Reject.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from agentls.lsp.client_requests import ask_client
from agentls.tools.changes import unified_diff

if TYPE_CHECKING:
    from agentls.lsp.server import AgentServer

APPLY, SHOW_DIFF, REJECT = "Apply", "Show diff", "Reject"


async def review_edit(
    server: AgentServer, rel: str, before: str, after: str, summary: str
) -> tuple[bool, str]:
    """(approved, reason) after asking the person, at most a few rounds."""
    timeout = server.settings.approval_timeout_seconds
    for _ in range(5):
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"agentls wants to {summary}. Apply it?",
            actions=[
                types.MessageActionItem(APPLY),
                types.MessageActionItem(SHOW_DIFF),
                types.MessageActionItem(REJECT),
            ],
        )
        answer = await ask_client(
            server.window_show_message_request_async(params), timeout, "the edit review"
        )
        title = answer.title if answer is not None else None
        if title == APPLY:
            return True, ""
        if title != SHOW_DIFF:
            return False, "the person chose Reject" if title == REJECT else "no answer"
        await show_diff(server, rel, before, after)
    return False, "no decision after several rounds"


async def show_diff(server: AgentServer, rel: str, before: str, after: str) -> str:
    """Write the proposed change as a .diff file in the state dir and open it."""
    diff = unified_diff(rel, before, after, labels=("current", "proposed"))
    digest = hashlib.sha256(diff.encode()).hexdigest()[:12]
    folder = server.store.state_dir / "diffs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{Path(rel).name}-{digest}.diff"
    path.write_text(diff, encoding="utf-8")
    uri = path.as_uri()
    await server.show_document(uri)
    return uri
