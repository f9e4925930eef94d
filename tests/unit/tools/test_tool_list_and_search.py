"""list_files and search through a LocalWorkspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.tools.list_files import LIST_FILES, ListFilesInput
from agentls.tools.search import SEARCH, SearchInput
from agentls.workspace.interface import ToolContext


@pytest.fixture
def project(root: Path) -> Path:
    for rel, text in {
        ".gitignore": "dist/\n",
        "src/app.py": "def main():\n    print('hi')\n",
        "src/util.py": "def helper():\n    return 42\n",
        "tests/test_app.py": "from src.app import main\n",
        "dist/bundle.py": "def main(): pass\n",
        "README.md": "# demo\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


async def list_files(ctx: ToolContext, **fields: object) -> tuple[str, dict[str, object]]:
    params = ListFilesInput.model_validate(fields)
    assert LIST_FILES.validate is not None
    LIST_FILES.validate(params, ctx)
    output = await LIST_FILES.run(params, ctx)
    return output.text, output.meta


async def search(ctx: ToolContext, **fields: object) -> tuple[str, dict[str, object]]:
    params = SearchInput.model_validate(fields)
    assert SEARCH.validate is not None
    SEARCH.validate(params, ctx)
    output = await SEARCH.run(params, ctx)
    return output.text, output.meta


async def test_list_files_honours_gitignore(project: Path, ctx: ToolContext) -> None:
    text, meta = await list_files(ctx)
    assert text.splitlines() == ["README.md", "src/app.py", "src/util.py", "tests/test_app.py"]
    assert meta["count"] == 4 and meta["truncated"] is False


async def test_list_files_pattern_is_relative_to_path(project: Path, ctx: ToolContext) -> None:
    text, _ = await list_files(ctx, path="src", pattern="*.py")
    assert text.splitlines() == ["src/app.py", "src/util.py"]
    text, _ = await list_files(ctx, pattern="tests/**")
    assert text.splitlines() == ["tests/test_app.py"]
    text, _ = await list_files(ctx, pattern="*.rs")
    assert text == "No files matching '*.rs' under .."


async def test_list_files_is_bounded(root: Path, ctx: ToolContext) -> None:
    ctx.output_limit = 1000
    for n in range(300):
        (root / f"file_{n:03}.txt").write_text("")
    text, meta = await list_files(ctx)
    lines = text.splitlines()
    assert lines[0] == "file_000.txt"
    assert lines[-1] == (
        f"[{len(lines) - 1} files shown; {301 - len(lines)} more not shown; "
        "narrow it with path or pattern]"
    )
    assert len(text) <= 1000 and meta["truncated"] is True


async def test_list_files_stops_at_the_entry_limit(root: Path, ctx: ToolContext) -> None:
    ctx.output_limit = 1_000_000
    for n in range(1005):
        (root / f"f{n:04}").write_text("")
    text, meta = await list_files(ctx)
    lines = text.splitlines()
    assert len(lines) == 1001 and lines[999] == "f0999"
    assert lines[-1] == "[1000 files shown; more not shown; narrow it with path or pattern]"
    assert meta["truncated"] is True


async def test_list_files_refuses_escapes(root: Path, outside: Path, ctx: ToolContext) -> None:
    os.symlink(outside, root / "linkdir")
    for path in ("..", "linkdir", str(outside)):
        with pytest.raises(ToolError) as caught:
            await list_files(ctx, path=path)
        assert caught.value.code is ErrorCode.PERMISSION_DENIED


async def test_search_reports_path_line_and_text(project: Path, ctx: ToolContext) -> None:
    text, meta = await search(ctx, pattern=r"def \w+\(")
    assert text.splitlines() == ["src/app.py:1: def main():", "src/util.py:1: def helper():"]
    assert meta["engine"] in ("ripgrep", "python")
    assert meta["matches"] == 2
    text, _ = await search(ctx, pattern="main", path="tests", glob="test_*.py")
    assert text == "tests/test_app.py:1: from src.app import main"


async def test_search_without_matches_says_so(project: Path, ctx: ToolContext) -> None:
    text, meta = await search(ctx, pattern="nothing_here")
    assert text == "No matches for /nothing_here/ in .."
    assert meta["matches"] == 0


async def test_search_bounds_matches_and_line_length(root: Path, ctx: ToolContext) -> None:
    (root / "many.txt").write_text("".join(f"hit {n}\n" for n in range(500)))
    (root / "long.txt").write_text("hit " + "z" * 1000 + "\n")
    text, meta = await search(ctx, pattern="hit")
    lines = text.splitlines()
    assert lines[0] == "long.txt:1: hit " + "z" * 296 + " [... line cut]"
    assert len(lines) == 201
    assert lines[-1].startswith("[200 matches shown; more not shown")
    assert meta["truncated"] is True


async def test_search_rejects_an_invalid_regex(project: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await search(ctx, pattern="def (")
    assert caught.value.code is ErrorCode.INVALID_INPUT
    assert "invalid regex 'def ('" in str(caught.value)


async def test_search_refuses_escapes(root: Path, outside: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await search(ctx, pattern="secret", path="../outside")
    assert caught.value.code is ErrorCode.PERMISSION_DENIED
