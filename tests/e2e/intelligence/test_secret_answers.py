"""A secret file's value never reaches an observation through the language tools, with a
real basedpyright: not as a definition's line, a symbol, nor a literal type in a problem."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agentls.intelligence.config import ProblemsSettings
from agentls.intelligence.languages import Languages
from agentls.tools.definition import DEFINITION, REFERENCES, SymbolAtInput
from agentls.tools.problems import PROBLEMS, ProblemsInput
from agentls.tools.symbols import SYMBOLS, SymbolsInput
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace
from tests.e2e.conftest import Cli
from tests.e2e.intelligence.conftest import user_settings
from tests.helpers import script

VALUE = "sk-live-opensesame"  # not a shape the output masking knows: only withholding hides it
DOTENV_VALUE = "sk-live-dotenvonly"
SECRETS = f'API_KEY = "{VALUE}"\n'
MAIN = (
    "from app.secrets import API_KEY\n"
    "from app.config import API_KEY as LINKED\n"
    "\n"
    "count: int = API_KEY\n"
    "reveal_type(LINKED)\n"
    "print(API_KEY)\n"
)


def project(root: Path) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "secrets.py").write_text(SECRETS)
    os.symlink("secrets.py", root / "app" / "config.py")  # a link to a secret file is that file
    (root / ".env").write_text(f"API_KEY={DOTENV_VALUE}\n")


@pytest.fixture
async def context(
    workspace: Path, pyright_path: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[ToolContext]:
    monkeypatch.setenv("PATH", pyright_path)
    project(workspace)
    (workspace / "main.py").write_text(MAIN)
    languages = Languages()
    local = LocalWorkspace(workspace)
    yield ToolContext(
        local, intelligence=languages.attach(local, {"ruff": None}, ProblemsSettings())
    )
    await languages.aclose()


async def test_definitions_references_and_symbols_withhold_the_secret_file(
    context: ToolContext,
) -> None:
    definition = await DEFINITION.run(
        SymbolAtInput(path="main.py", line=6, symbol="API_KEY"), context
    )
    assert VALUE not in definition.text
    assert definition.text == (
        "1 definition from a secret file withheld (app/secrets.py): read it with read_file, "
        "which asks first"
    )
    references = await REFERENCES.run(
        SymbolAtInput(path="main.py", line=6, symbol="API_KEY"), context
    )
    assert VALUE not in references.text
    assert "main.py:4: count: int = API_KEY" in references.text  # not secret: it comes through
    assert "main.py:6: print(API_KEY)" in references.text
    assert "from a secret file withheld (app/secrets.py)" in references.text
    symbols = await SYMBOLS.run(SymbolsInput(query="API_KEY"), context)
    assert VALUE not in symbols.text and "app/secrets.py:" not in symbols.text
    assert "withheld (app/secrets.py)" in symbols.text


async def test_problems_quoting_a_literal_from_the_secret_file_are_withheld(
    context: ToolContext,
) -> None:
    for params in (ProblemsInput(path="main.py"), ProblemsInput()):
        out = await PROBLEMS.run(params, context)
        assert VALUE not in out.text
        # the assignment's error and reveal_type's note both print Literal['sk-live-…']
        assert "problems from a secret file withheld (app/secrets.py)" in out.text, out.text
        assert out.meta["withheld"] >= 2


def test_an_ask_that_digs_for_the_value_leaves_it_out_of_the_log(
    cli: Cli, workspace: Path, tmp_path: Path, pyright_path: str
) -> None:
    project(workspace)
    peek = "from app.secrets import API_KEY\n\nreveal_type(API_KEY)\nn: int = API_KEY\n"
    model = script(tmp_path, [
        {"toolCalls": [{"name": "write_file", "input": {"path": "peek.py", "content": peek}}]},
        {"toolCalls": [{"name": "problems", "input": {"path": "peek.py"}}]},
        {"expect": {"lastToolResultContains": "withheld (app/secrets.py)"},
         "toolCalls": [{"name": "definition",
                        "input": {"path": "peek.py", "line": 3, "symbol": "API_KEY"}}]},
        {"expect": {"lastToolResultContains": "withheld (app/secrets.py)"}, "text": "Done."},
    ])  # fmt: skip
    env = {"PATH": pyright_path, **user_settings(tmp_path, {"languageServers": {"ruff": None}})}
    proc = cli.run("ask", "find the key", "--model", model, "--yes", env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    (log,) = cli.session_files()
    assert "withheld (app/secrets.py)" in log.read_text()
    for value in (VALUE, DOTENV_VALUE):  # observations, the problems after the edit, all
        assert value not in log.read_text()
        shown = cli.run("show", log.stem, env=env)
        assert shown.returncode == 0 and value not in shown.stdout
