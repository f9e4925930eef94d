"""filesearch: ripgrep and the Python fallback agree, and both follow ripgrep's defaults."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace import filesearch
from tests.helpers import until

needs_rg = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
ENGINES = [pytest.param(True, marks=needs_rg, id="ripgrep"), pytest.param(False, id="python")]


def make_tree(root: Path) -> None:
    files = {
        ".gitignore": "*.log\nbuild/\n/top_only.txt\n!keep.log\ndocs/*.tmp\n",
        "README.md": "hello world\n",
        "top_only.txt": "hello ignored at the top\n",
        "keep.log": "hello kept log\n",
        "debug.log": "hello ignored log\n",
        "src/main.py": "def hello():\n    return 'hello'\n",
        "src/top_only.txt": "hello not anchored here\n",
        "src/util.py": "import os\nHELLO = 1\n",
        "src/a-b.py": "hello dash\n",
        "src/a/inner.py": "hello inner\n",
        "src/.hidden.py": "hello hidden\n",
        "src/vendor/.gitignore": "*.gen.py\n!keep.gen.py\n",
        "src/vendor/x.gen.py": "hello generated\n",
        "src/vendor/keep.gen.py": "hello kept generated\n",
        "src/vendor/lib.py": "hello vendor\n",
        "build/out.py": "hello build\n",
        "docs/guide.md": "hello docs\r\nsecond line\r\n",
        "docs/note.tmp": "hello tmp\n",
        "docs/deep/note.tmp": "hello deep tmp\n",
        ".github/workflows/ci.yml": "hello ci\n",
        ".env": "SECRET=hello\n",
        "excluded.txt": "hello excluded by info/exclude\n",
        "data/blob.bin": "",
        "data/names.txt": "hello names\n",
        "ignored_by_rgignore.txt": "hello\n",
        "ignored_by_dot_ignore.txt": "hello\n",
        ".rgignore": "ignored_by_rgignore.txt\n",
        ".ignore": "ignored_by_dot_ignore.txt\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    (root / "data" / "blob.bin").write_bytes(b"hello\x00\x01\x02 binary hello\n")
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("excluded.txt\n")
    (root / ".git" / "HEAD").write_text("hello ref\n")
    os.symlink(root / "src" / "main.py", root / "src" / "link.py")


EXPECTED_FILES = [
    "README.md",
    "data/blob.bin",
    "data/names.txt",
    "docs/deep/note.tmp",
    "docs/guide.md",
    "keep.log",
    "src/a/inner.py",
    "src/a-b.py",
    "src/main.py",
    "src/top_only.txt",
    "src/util.py",
    "src/vendor/keep.gen.py",
    "src/vendor/lib.py",
]


@pytest.fixture
def tree(root: Path) -> Path:
    make_tree(root)
    return root.resolve()


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_listing_follows_ignore_files_and_skips_hidden(tree: Path, use_rg: bool) -> None:
    listing = await filesearch.list_files(tree, ".", None, 100, use_ripgrep=use_rg)
    assert listing.paths == EXPECTED_FILES
    assert not listing.truncated


@needs_rg
@pytest.mark.parametrize(
    ("base", "pattern"),
    [
        (".", None),
        (".", "*.py"),
        (".", "src/**/*.py"),
        (".", "**/*.{md,tmp}"),
        ("src", "*.py"),
        ("src", "a/*"),
        ("src/vendor", None),
        ("src/main.py", None),
        (".github", None),
        ("build", None),
        ("docs", "deep/**"),
    ],
)
async def test_both_engines_list_the_same(tree: Path, base: str, pattern: str | None) -> None:
    by_rg = await filesearch.list_files(tree, base, pattern, 100, use_ripgrep=True)
    by_python = await filesearch.list_files(tree, base, pattern, 100, use_ripgrep=False)
    assert by_rg == by_python
    assert by_rg.paths  # each case lists something, so the comparison means something


@needs_rg
@pytest.mark.parametrize(
    ("pattern", "base", "glob"),
    [
        ("hello", ".", None),
        ("(?i)HELLO", ".", None),
        ("log$", ".", None),
        ("^def ", ".", "*.py"),
        ("hello", "src", "vendor/*"),
        ("hello", "data/blob.bin", None),
        ("line", "docs", None),
        ("hello", ".github", None),
    ],
)
async def test_both_engines_search_the_same(
    tree: Path, pattern: str, base: str, glob: str | None
) -> None:
    by_rg = await filesearch.search(tree, pattern, base, glob, 100, use_ripgrep=True)
    by_python = await filesearch.search(tree, pattern, base, glob, 100, use_ripgrep=False)
    assert by_rg.engine == "ripgrep"
    assert by_python.engine == "python"
    assert by_rg.matches == by_python.matches
    assert by_rg.matches


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_search_skips_binary_ignored_and_hidden_files(tree: Path, use_rg: bool) -> None:
    result = await filesearch.search(tree, "hello", ".", None, 100, use_ripgrep=use_rg)
    found = {match.path for match in result.matches}
    assert found == {
        "README.md",
        "data/names.txt",
        "docs/deep/note.tmp",
        "docs/guide.md",
        "keep.log",
        "src/a/inner.py",
        "src/a-b.py",
        "src/main.py",
        "src/top_only.txt",
        "src/vendor/keep.gen.py",
        "src/vendor/lib.py",
    }
    main_lines = [(m.line, m.text) for m in result.matches if m.path == "src/main.py"]
    assert main_lines == [(1, "def hello():"), (2, "    return 'hello'")]
    guide = [m.text for m in result.matches if m.path == "docs/guide.md"]
    assert guide == ["hello docs"]  # no trailing "\r"


@pytest.mark.parametrize("use_rg", ENGINES)
async def test_limits_truncate_in_path_order(tree: Path, use_rg: bool) -> None:
    listing = await filesearch.list_files(tree, ".", None, 3, use_ripgrep=use_rg)
    assert listing.paths == EXPECTED_FILES[:3]
    assert listing.truncated
    result = await filesearch.search(tree, "hello", ".", None, 2, use_ripgrep=use_rg)
    assert [m.path for m in result.matches] == ["README.md", "data/names.txt"]
    assert result.truncated


async def test_invalid_regex_is_invalid_input(tree: Path) -> None:
    with pytest.raises(ToolError) as caught:
        await filesearch.search(tree, "foo(", ".", None, 10)
    assert caught.value.code is ErrorCode.INVALID_INPUT
    assert "missing )" in str(caught.value)


@needs_rg
async def test_python_only_regex_falls_back_to_the_python_engine(tree: Path) -> None:
    result = await filesearch.search(tree, r"(?<=def )hello", ".", None, 10, use_ripgrep=True)
    assert result.engine == "python"
    assert [(m.path, m.line) for m in result.matches] == [("src/main.py", 1)]


async def test_environment_variable_forces_the_python_engine(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLS_NO_RIPGREP", "1")
    assert filesearch.ripgrep_path() is None
    result = await filesearch.search(tree, "hello", ".", None, 10)
    assert result.engine == "python"


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "x/y/a.py", True),
        ("*.py", "a.pyc", False),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/x/a.py", False),
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("**/test_*.py", "test_a.py", True),
        ("src/**", "src/x/y", True),
        ("*.{ts,tsx}", "ui/app.tsx", True),
        ("*.{ts,tsx}", "ui/app.js", False),
        ("file?.txt", "file1.txt", True),
        ("file[0-9].txt", "file7.txt", True),
        ("file[!0-9].txt", "file7.txt", False),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_glob_translation(glob: str, path: str, matches: bool) -> None:
    assert filesearch.path_glob_matcher(glob)(path) is matches


def _ripgrep_children() -> list[int]:
    """Live ripgrep processes started by this process."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        name, fields = stat[stat.index("(") + 1 : stat.rindex(")")], stat.rsplit(")", 1)[1].split()
        if name == "rg" and int(fields[1]) == os.getpid() and fields[0] not in ("Z", "X"):
            found.append(int(pid))
    return found


@needs_rg
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
async def test_cancelling_a_ripgrep_search_kills_ripgrep(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")  # ripgrep blocks opening it: a search that never ends
    search = asyncio.create_task(
        filesearch.search(tmp_path, "x", "pipe", None, 10, use_ripgrep=True)
    )
    await until(lambda: bool(_ripgrep_children()))
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await search
    await until(lambda: not _ripgrep_children())
