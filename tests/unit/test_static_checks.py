"""Lint, format and strict typing are part of the suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            pytest.fail(f"{name} is not installed: pip install -e '.[dev]'")
        return found
    return str(path)


def test_ruff_lint_and_format() -> None:
    lint = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(
        [_tool("ruff"), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def _agentls_tree(where: Path) -> None:
    # The package is `agentls` but lives in server/ (and tools/): give mypy a
    # tree under the real name, made of links, so it checks the files in place.
    tree = where / "agentls"
    tree.mkdir()
    for entry in (ROOT / "server").iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, tree / entry.name)
    os.symlink(ROOT / "tools", tree / "tools")


def test_mypy_strict_on_server_and_tools(tmp_path: Path) -> None:
    _agentls_tree(tmp_path)
    cache = ROOT / ".mypy_cache"
    result = subprocess.run(
        [_tool("mypy"), "--strict", "--cache-dir", str(cache), "-p", "agentls"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_value_classes_are_frozen_to_the_type_checker(tmp_path: Path) -> None:
    # @value classes skip the frozen dataclass's run-time guard for speed; mypy is the guard.
    _agentls_tree(tmp_path)
    snippet = tmp_path / "assigns.py"
    snippet.write_text(
        "from agentls.contracts.usage import Usage\nusage = Usage(1, 2)\nusage.input_tokens = 3\n"
    )
    result = subprocess.run(
        [_tool("mypy"), "--strict", "--cache-dir", str(ROOT / ".mypy_cache"), str(snippet)],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Property "input_tokens" defined in "Usage" is read-only' in result.stdout
