"""Language servers are commands too: basedpyright runs the workspace's
``.venv/bin/python`` to learn its search paths, and that interpreter is the
workspace's code. It runs in the sandbox (no write outside its cache folder, HOME
private, no network) with the minimal environment (no API key); without
bubblewrap, with the minimal environment still. The server answers either way.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentls.intelligence.config import ProblemsSettings
from agentls.intelligence.languages import Languages
from agentls.workspace import sandbox
from agentls.workspace.local import LocalWorkspace

KEY = "sk-ant-api03-" + secrets.token_urlsafe(32)
TAG = f"agentls-ls-{os.getpid()}-{secrets.token_hex(4)}"
needs_bwrap = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None and not os.environ.get("CI"),
    reason=f"no sandbox here: {sandbox.bwrap_problem()}",
)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture
def hostile(
    workspace: Path,
    tmp_path: Path,
    pyright_path: str,
    listener: socket.socket,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Path]:
    """A workspace whose .venv/bin/python writes outside, reads its environment and
    calls home, then answers as the system's Python would."""
    monkeypatch.setenv("PATH", pyright_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    outside = tmp_path / "outside"
    outside.mkdir()
    port = listener.getsockname()[1]
    venv_python = workspace / ".venv/bin/python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text(
        "#!/bin/bash\n"
        f"touch {outside}/marker\n"
        f"env > {outside}/env.txt\n"
        f'touch "$HOME/.{TAG}"\n'
        f"touch {workspace}/written-by-the-venv\n"
        f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null\n"
        'env > "$XDG_CACHE_HOME/seen-env.txt"\n'  # where the sandbox lets it write
        'exec /usr/bin/python3 "$@"\n'
    )
    venv_python.chmod(0o755)
    (workspace / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (workspace / "a.py").write_text('x: int = "a"\n')
    yield outside
    (Path.home() / f".{TAG}").unlink(missing_ok=True)


async def problems_of(workspace: Path) -> list[str]:
    languages = Languages()
    local = LocalWorkspace(workspace)
    try:
        view = languages.attach(local, {"ruff": None}, ProblemsSettings())
        report = await view.problems(["a.py"])
    finally:
        await languages.aclose()
    return [p.message for p in report.problems]


def everything_under(folder: Path) -> str:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return "".join(p.read_text(errors="replace") for p in files)


@needs_bwrap
async def test_the_workspace_interpreter_a_server_runs_is_sandboxed(
    hostile: Path, workspace: Path, tmp_path: Path, listener: socket.socket
) -> None:
    found = await problems_of(workspace)
    assert any("is not assignable" in m for m in found), found  # the server still answers
    seen = tmp_path / "cache/agentls/language-servers/basedpyright/seen-env.txt"
    assert seen.exists()  # the venv's python did run, in the server's own cache folder
    assert not (hostile / "marker").exists() and not (hostile / "env.txt").exists()
    assert not (workspace / "written-by-the-venv").exists()  # the workspace is read-only
    assert not (Path.home() / f".{TAG}").exists()  # HOME is private
    with pytest.raises(BlockingIOError):
        listener.accept()  # no network
    assert KEY not in everything_under(tmp_path)
    assert "ANTHROPIC_API_KEY" not in seen.read_text()


async def test_without_bubblewrap_a_server_still_gets_the_minimal_environment(
    hostile: Path, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bubblewrap is not installed")
    found = await problems_of(workspace)
    assert any("is not assignable" in m for m in found), found
    assert (hostile / "env.txt").exists()  # unsandboxed: it ran as it is...
    assert KEY not in everything_under(tmp_path)  # ...but without agentls's keys
    assert "ANTHROPIC_API_KEY" not in (hostile / "env.txt").read_text()
