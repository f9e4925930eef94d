"""search: lines matching a regex across the workspace's files; .gitignore honoured."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition

MAX_MATCHES = 200
MAX_LINE_CHARS = 300


class SearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(
        description=(
            "Regular expression (Python/ripgrep syntax) matched against each line, "
            "case-sensitive; prefix with (?i) to ignore case. Escape regex characters to find "
            r"literal text, e.g. `foo\(`."
        )
    )
    path: str = Field(
        default=".",
        description="File or folder to search, relative to the workspace root (default: root).",
    )
    glob: str | None = Field(
        default=None,
        description=(
            "Optional glob limiting which files are searched, relative to `path`: `*.py` "
            "(file names at any depth), `src/**/*.{ts,tsx}`."
        ),
    )


def _validate(params: SearchInput, ctx: ToolContext) -> None:
    params.path = ctx.workspace.relative(params.path)
    try:
        re.compile(params.pattern)
    except re.error as exc:
        raise ToolError(
            ErrorCode.INVALID_INPUT, f"invalid regex {params.pattern!r}: {exc}", retryable=True
        ) from exc


async def _run(params: SearchInput, ctx: ToolContext) -> ToolOutput:
    _validate(params, ctx)
    rel = params.path
    result = await ctx.workspace.search(params.pattern, rel, params.glob, MAX_MATCHES)
    meta = {
        "path": rel,
        "matches": len(result.matches),
        "truncated": result.truncated,
        "engine": result.engine,
    }
    if not result.matches:
        where = rel + (f" (files matching {params.glob!r})" if params.glob else "")
        return ToolOutput(f"No matches for /{params.pattern}/ in {where}.", meta)
    lines: list[str] = []
    used = 0
    budget = ctx.output_limit - 150
    for match in result.matches:
        text = match.text
        if len(text) > MAX_LINE_CHARS:
            text = f"{text[:MAX_LINE_CHARS]} [... line cut]"
        entry = f"{match.path}:{match.line}: {text}"
        if lines and used + len(entry) + 1 > budget:
            break
        lines.append(entry)
        used += len(entry) + 1
    if len(lines) < len(result.matches) or result.truncated:
        lines.append(
            f"[{len(lines)} matches shown; more not shown; narrow it with path, glob or a "
            "more specific pattern]"
        )
        meta["truncated"] = True
    return ToolOutput("\n".join(lines), meta)


SEARCH: ToolDefinition[SearchInput] = ToolDefinition(
    name="search",
    description=(
        "Search file contents for a regular expression, like ripgrep. Returns matching lines "
        "as `path:line: text` (paths relative to the workspace root, lines 1-based). Files "
        "ignored by .gitignore, hidden files, binary files and secret files (.env, keys, "
        "credentials: search one by its path to ask for it) are skipped; secrets in a line "
        "are masked and matched masked. At most "
        f"{MAX_MATCHES} matches are shown; long lines are cut. Use read_file with offset to "
        "see a match in context."
    ),
    input_model=SearchInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=lambda params: (
        f"search /{params.pattern}/ in {params.path}" + (f" ({params.glob})" if params.glob else "")
    ),
    validate=_validate,
)
