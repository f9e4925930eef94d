"""What the language-server tools share: the intelligence, a symbol named on a line, and
how an answer is shown (with why some of it is withheld: it came from secret files)."""

from __future__ import annotations

import re

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.tools.changes import decode_text
from agentls.workspace.interface import ToolContext
from agentls.workspace.language import LanguageIntelligence, Locations, Withheld

MAX_LISTED = 100


def intelligence(ctx: ToolContext) -> LanguageIntelligence:
    if ctx.intelligence is None:
        raise ToolError(
            ErrorCode.NOT_FOUND,
            "language servers are not available here; use search and read_file instead",
        )
    return ctx.intelligence


async def locate(ctx: ToolContext, path: str, line: int, symbol: str) -> tuple[str, int]:
    """The workspace-relative path and the column of ``symbol`` on ``line`` (1-based)."""
    rel = ctx.workspace.relative(path)
    text = decode_text(await ctx.workspace.read(rel))
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        raise ToolError(
            ErrorCode.INVALID_INPUT,
            f"{rel} has {len(lines)} lines; line {line} does not exist",
            retryable=True,
        )
    source = lines[line - 1]
    if not symbol.strip():
        raise ToolError(ErrorCode.INVALID_INPUT, "symbol is empty; name the identifier")
    word = re.escape(symbol)
    match = re.search(rf"(?<![\w$]){word}(?![\w$])", source) or re.search(word, source)
    if match is None:
        raise ToolError(
            ErrorCode.NOT_FOUND,
            f"{symbol!r} does not occur on line {line} of {rel}, which reads: {source.strip()!r}",
            retryable=True,
        )
    return rel, match.start()


def render_locations(answer: Locations, what: str) -> str:
    locations = answer.found
    if not locations:
        return withheld_note(answer.withheld, what) or f"No {what} found."
    lines = [
        f"{loc.path}:{loc.line}" + (f": {loc.text}" if loc.text else "")
        for loc in locations[:MAX_LISTED]
    ]
    more = len(locations) - MAX_LISTED
    if more > 0:
        lines.append(f"... and {more} more")
    if answer.withheld.count:
        lines.append(withheld_note(answer.withheld, what))
    noun = what if len(locations) != 1 else what.rstrip("s")
    return f"{len(locations)} {noun}:\n" + "\n".join(lines)


def withheld_note(withheld: Withheld, what: str) -> str:
    """Why some of the answer is missing ("" when nothing is); ``what`` is a plural noun."""
    return withheld.note(what.removesuffix("s"), what) if withheld.count else ""
