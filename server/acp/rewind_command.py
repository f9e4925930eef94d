"""`/rewind`: the session's asks, numbered as `agentls show` prints them; `/rewind N` takes
the session back to before ask N (`files` or `conversation` for one half); one call onto
the conversation's rewind (conversation/rewind.py)."""

from __future__ import annotations

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from agentls.conversation.one_session import Conversation, SessionBusy
from agentls.conversation.rewind import RewindRefused
from agentls.session.labels import request_words

REWIND_COMMAND = AvailableCommand(
    name="rewind",
    description="Take the session back to before ask N: later asks leave the conversation, "
    "their files go back (alone: lists the asks)",
    input=AvailableCommandInput(
        UnstructuredCommandInput(hint="N | N files | N conversation (none: list the asks)")
    ),
)
_HALVES = {"files": (False, True), "conversation": (True, False)}
_PROMPT_WIDTH = 70


async def run_rewind(conversation: Conversation, argument: str) -> str:
    words = argument.split()
    if not words:
        return await _listing(conversation)
    half = words[1] if len(words) == 2 else ""
    if not words[0].isdigit() or len(words) > 2 or (half and half not in _HALVES):
        return f"/rewind takes an ask's number, then files or conversation; not {argument!r}"
    talk, files = _HALVES.get(half, (True, True))
    try:  # not while this session runs here or elsewhere
        result = await conversation.rewind(int(words[0]), conversation=talk, files=files)
    except (RewindRefused, SessionBusy) as exc:
        return f"nothing rewound: {exc}"
    return result.describe()


async def _listing(conversation: Conversation) -> str:
    asks = await conversation.asks()
    if not asks:
        return "this session has no asks yet"
    lines = []
    for run in asks:
        words = " ".join(request_words(run.prompt).split())
        if len(words) > _PROMPT_WIDTH:
            words = words[: _PROMPT_WIDTH - 1].rstrip() + "…"
        lines.append(f"{run.number}. ~~{words}~~ (taken back)" if run.rewound else
                     f"{run.number}. {words}")  # fmt: skip
    return "\n".join([*lines, "", "/rewind N takes the session back to before ask N"])
