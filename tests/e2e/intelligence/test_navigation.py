"""definition, references, symbols and rename against real servers, through the tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agentls.contracts.tooling import ToolError
from agentls.intelligence.config import ProblemsSettings
from agentls.intelligence.languages import Languages
from agentls.tools.definition import DEFINITION, REFERENCES, SymbolAtInput
from agentls.tools.problems import PROBLEMS, ProblemsInput
from agentls.tools.symbols import SYMBOLS, SymbolsInput
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace

SHAPES = "class Shape:\n    def area(self) -> float:\n        return 0.0\n\n\ndef total(shapes: list[Shape]) -> float:\n    return sum(s.area() for s in shapes)\n"  # noqa: E501
USE = "from shapes import Shape, total\n\nprint(total([Shape()]))\n"
MORE = "from shapes import total\n\n\ndef twice() -> float:\n    return 2 * total([])\n"
TS_LIB = "export function double(n: number): number {\n  return n * 2;\n}\n"
TS_MAIN = "import { double } from './lib';\n\nconst x: number = double(2);\nconsole.log(x);\n"


@pytest.fixture
async def context(
    workspace: Path, pyright_path: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[ToolContext]:
    monkeypatch.setenv("PATH", pyright_path)
    (workspace / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (workspace / "shapes.py").write_text(SHAPES)
    (workspace / "use.py").write_text(USE)
    (workspace / "more.py").write_text(MORE)
    (workspace / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    (workspace / "lib.ts").write_text(TS_LIB)
    (workspace / "main.ts").write_text(TS_MAIN)
    languages = Languages()
    local = LocalWorkspace(workspace)
    ctx = ToolContext(
        local, intelligence=languages.attach(local, {"ruff": None}, ProblemsSettings())
    )
    yield ctx
    await languages.aclose()


async def test_definition_follows_the_import(context: ToolContext) -> None:
    out = await DEFINITION.run(SymbolAtInput(path="use.py", line=3, symbol="total"), context)
    assert out.text == "1 definition:\nshapes.py:6: def total(shapes: list[Shape]) -> float:"


async def test_references_span_the_files(context: ToolContext) -> None:
    out = await REFERENCES.run(SymbolAtInput(path="shapes.py", line=6, symbol="total"), context)
    lines = out.text.splitlines()
    assert lines[0] == "5 references:"
    assert set(lines[1:]) == {
        "more.py:1: from shapes import total",
        "more.py:5: return 2 * total([])",
        "shapes.py:6: def total(shapes: list[Shape]) -> float:",
        "use.py:1: from shapes import Shape, total",
        "use.py:3: print(total([Shape()]))",
    }


async def test_symbols_outline_and_workspace_search(context: ToolContext) -> None:
    outline = await SYMBOLS.run(SymbolsInput(path="shapes.py"), context)
    assert "shapes.py:1: class Shape" in outline.text
    assert "shapes.py:2: method area (in Shape)" in outline.text
    assert "shapes.py:6: function total" in outline.text
    found = await SYMBOLS.run(SymbolsInput(query="Shape"), context)
    assert "shapes.py:1: class Shape" in found.text


async def test_a_symbol_not_on_the_line_is_a_clear_error(context: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"'nothing' does not occur on line 3 of use\.py"):
        await DEFINITION.run(SymbolAtInput(path="use.py", line=3, symbol="nothing"), context)


async def test_typescript_definition_and_problems(context: ToolContext, ts_path: str) -> None:
    out = await DEFINITION.run(SymbolAtInput(path="main.ts", line=3, symbol="double"), context)
    assert out.text == "1 definition:\nlib.ts:1: export function double(n: number): number {"
    # Each verdict answers the text just written, never the one before it: the
    # server's versionless pushes of the previous text may still be on their way.
    broken = TS_MAIN.replace("double(2)", "double('two')")
    for text, expected in [(broken, 1), (TS_MAIN, 0), (broken, 1), (TS_MAIN, 0)]:
        await context.workspace.write("main.ts", text, expected_version=None, create=False)
        problems = await PROBLEMS.run(ProblemsInput(path="main.ts"), context)
        assert "still being checked" not in problems.text
        if expected:
            assert "main.ts:3: Argument of type 'string' is not assignable" in problems.text
            assert "(typescript 2345)" in problems.text
        else:
            assert problems.text == "No problems in main.ts."


async def test_files_no_server_knows_are_named_with_the_reason(context: ToolContext) -> None:
    (context.workspace.root / "notes.md").write_text("# notes\n")
    out = await PROBLEMS.run(ProblemsInput(path="notes.md"), context)
    assert "notes.md: not checked: no language server is configured for .md files" in out.text


async def test_a_library_definition_is_a_path_and_a_line(context: ToolContext) -> None:
    out = await DEFINITION.run(SymbolAtInput(path="use.py", line=3, symbol="print"), context)
    head, *locations = out.text.splitlines()
    assert head.startswith(f"{len(locations)} definition") and locations
    for location in locations:
        path, line = location.rsplit(":", 1)
        assert path.startswith("/") and path.endswith("builtins.pyi") and int(line) > 1
