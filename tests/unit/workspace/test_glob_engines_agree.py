"""ripgrep and the Python engine give the same answers for the same globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.workspace import filesearch

from .test_workspace_filesearch import make_tree, needs_rg

GLOBS = [
    "*.log",
    "*.py",
    "[!m]*.py",
    "*.{md,txt}",
    "./src/*.py",
    "src/**",
    "**/*.tmp",
    "docs/*.tmp",
    "*.gen.py",
    "a?b.py",
    "[a-c]*",
    "/README.md",
    "src/",
]


@pytest.fixture
def tree(root: Path) -> Path:
    make_tree(root)
    return root.resolve()


@needs_rg
@pytest.mark.parametrize("glob", GLOBS)
async def test_search_globs_agree(tree: Path, glob: str) -> None:
    by_rg = await filesearch.search(tree, "hello", ".", glob, 100, use_ripgrep=True)
    by_python = await filesearch.search(tree, "hello", ".", glob, 100, use_ripgrep=False)
    assert by_rg.matches == by_python.matches


@needs_rg
@pytest.mark.parametrize("glob", GLOBS)
async def test_list_globs_agree(tree: Path, glob: str) -> None:
    by_rg = await filesearch.list_files(tree, ".", glob, 100, use_ripgrep=True)
    by_python = await filesearch.list_files(tree, ".", glob, 100, use_ripgrep=False)
    assert by_rg == by_python


def test_a_glob_means_the_same_in_both_engines(tree: Path) -> None:
    assert filesearch.path_glob_matcher("./src/*.py")("src/main.py")
    assert not filesearch.path_glob_matcher("*.log")("debug.txt")
