"""What edit_file and write_file share: stale-read checks, rejection, diffs."""

from __future__ import annotations

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace.hunks import unified_diff
from agentls.workspace.interface import FileSnapshot, ToolContext, WriteOutcome

__all__ = ["unified_diff"]  # the tools import it from here

MAX_LANDED_DIFF_CHARS = 3000


def check_not_stale(ctx: ToolContext, rel: str, current_version: str) -> None:
    """Refuse a change to a file that moved since the agent last read it."""
    seen = ctx.reads.get(rel)
    if seen is not None and seen != current_version:
        raise ToolError(
            ErrorCode.CONFLICT,
            f"{rel} changed since you last read it; read it again before changing it",
            retryable=True,
        )


def raise_if_rejected(outcome: WriteOutcome) -> None:
    if not outcome.applied:
        reason = outcome.message or "no reason given"
        raise ToolError(
            ErrorCode.PERMISSION_DENIED,
            f"the edit was rejected by the user: {reason}; nothing was written",
        )


async def remember_version(ctx: ToolContext, rel: str, outcome: WriteOutcome) -> None:
    """The file as written counts as read, so consecutive edits work."""
    version = outcome.version or await ctx.workspace.version(rel)
    if version is None:
        ctx.reads.pop(rel, None)
    else:
        ctx.reads[rel] = version


def landed_note(rel: str, proposed: str, outcome: WriteOutcome) -> str:
    """What the model should know about how the change landed (or "")."""
    said = f"\n{outcome.message}" if outcome.applied and outcome.message else ""
    if outcome.landed is None or outcome.landed == proposed:
        return said
    diff = unified_diff(rel, proposed, outcome.landed, labels=("proposed", "landed"))
    if len(diff) > MAX_LANDED_DIFF_CHARS:
        diff = diff[:MAX_LANDED_DIFF_CHARS] + "\n[... diff cut]"
    return (
        "\nWhat landed differs from what you proposed (the editor or the person changed it); "
        f"the file now holds the 'landed' side:\n{diff}{said}"
    )


def decode_text(snapshot: FileSnapshot) -> str:
    try:
        return snapshot.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            ErrorCode.INVALID_INPUT, f"{snapshot.path} is not a UTF-8 text file"
        ) from exc
