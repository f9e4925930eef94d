"""list_files: the files under a folder, optionally filtered by a glob; .gitignore honoured."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import Risk, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition

MAX_ENTRIES = 1000


class ListFilesInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        default=".",
        description="Folder to list, relative to the workspace root (default: the root).",
    )
    pattern: str | None = Field(
        default=None,
        description=(
            "Optional glob matched against paths relative to `path`. `*` and `?` stay within "
            "one folder, `**` crosses folders, `{a,b}` alternates. A glob without `/` matches "
            "file names at any depth (`*.py`); with `/` it matches the path from `path` "
            "(`src/**/*.ts`)."
        ),
    )


def _validate(params: ListFilesInput, ctx: ToolContext) -> None:
    params.path = ctx.workspace.relative(params.path)


async def _run(params: ListFilesInput, ctx: ToolContext) -> ToolOutput:
    rel = ctx.workspace.relative(params.path)
    listing = await ctx.workspace.list_files(rel, params.pattern, MAX_ENTRIES)
    meta = {
        "path": rel,
        "pattern": params.pattern,
        "count": len(listing.paths),
        "truncated": listing.truncated,
    }
    if not listing.paths:
        matching = f" matching {params.pattern!r}" if params.pattern else ""
        return ToolOutput(f"No files{matching} under {rel}.", meta)
    lines: list[str] = []
    used = 0
    budget = ctx.output_limit - 150
    for entry in listing.paths:
        if lines and used + len(entry) + 1 > budget:
            break
        lines.append(entry)
        used += len(entry) + 1
    hidden = len(listing.paths) - len(lines)
    if hidden or listing.truncated:
        more = f"{hidden} more" if not listing.truncated else "more"
        lines.append(
            f"[{len(lines)} files shown; {more} not shown; narrow it with path or pattern]"
        )
        meta["truncated"] = True
    return ToolOutput("\n".join(lines), meta)


LIST_FILES: ToolDefinition[ListFilesInput] = ToolDefinition(
    name="list_files",
    description=(
        "List the files under a folder of the workspace, recursively, one path per line "
        "(paths relative to the workspace root, ready for read_file). Files ignored by "
        ".gitignore and hidden files and folders (names starting with '.') are left out, "
        "unless you list such a folder directly. Filter with `pattern`, a glob relative to "
        f"`path`. At most {MAX_ENTRIES} entries are shown."
    ),
    input_model=ListFilesInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=lambda params: (
        f"list_files {params.path}" + (f" {params.pattern}" if params.pattern else "")
    ),
    validate=_validate,
)
