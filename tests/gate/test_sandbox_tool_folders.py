"""The sandbox binds exactly the tool folders on PATH, never their parents: with
``~/.local/bin`` or ``~/.cargo/bin`` on PATH, ``~/.local/share`` and
``~/.cargo/credentials.toml`` stay unreadable. Programs still run: a venv's and an
install prefix's libraries beside ``bin``, pyenv's shims, node from a prefix.
Each case runs a real command in the real sandbox and is judged by its output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentls.workspace import sandbox
from agentls.workspace.interface import CommandGrant
from agentls.workspace.local import LocalWorkspace

pytestmark = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None and not os.environ.get("CI"),
    reason=f"no sandbox here: {sandbox.bwrap_problem()}",
)
SYSTEM_PATH = "/usr/bin:/bin"


async def run(root: Path, command: str) -> str:
    result = await LocalWorkspace(root).run_command(CommandGrant(command, command), 60, 20_000)
    return f"{result.output}[exit {result.exit_code}]"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def program(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


async def test_a_bin_folder_on_path_brings_none_of_its_parent(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    program(home / ".local/bin/hello", "#!/bin/sh\necho hello-from-local\n")
    program(home / ".cargo/bin/cargo-hi", "#!/bin/sh\necho hello-from-cargo\n")
    (home / ".local/share/keyrings").mkdir(parents=True)
    (home / ".local/share/keyrings/secret").write_text("local-share-secret\n")
    (home / ".cargo/credentials.toml").write_text("token = 'cargo-secret'\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home}/.local/bin:{home}/.cargo/bin:{SYSTEM_PATH}")
    out = await run(
        root, "hello; cargo-hi; cat ~/.local/share/keyrings/secret ~/.cargo/credentials.toml"
    )
    assert "hello-from-local" in out and "hello-from-cargo" in out  # the tools run
    assert "local-share-secret" not in out and "cargo-secret" not in out, out
    listing = await run(root, "ls -a ~/.local ~/.cargo")
    assert "share" not in listing and "credentials" not in listing, listing


async def test_python_from_an_install_prefix_runs_and_its_other_folders_stay_hidden(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = Path(sys.base_prefix)  # pyenv's (or the system's) Python behind this venv
    monkeypatch.setenv("PATH", f"{prefix}/bin:{SYSTEM_PATH}")
    out = await run(root, "python3 -c 'import sys, json; print(sys.prefix)'")
    assert str(prefix) in out and out.endswith("[exit 0]"), out
    if not str(prefix).startswith("/usr/") and (prefix / "include").is_dir():
        shown = await run(root, f"ls {prefix}")
        assert "include" not in shown and "bin" in shown, shown  # never the prefix whole


async def test_a_venv_on_path_runs_with_its_packages(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv_bin = Path(sys.executable).parent  # this checkout's .venv: pytest is installed there
    monkeypatch.setenv("PATH", f"{venv_bin}:{SYSTEM_PATH}")
    out = await run(root, "python -c 'import pytest, sys; print(\"venv-ok\", sys.prefix)'")
    assert "venv-ok" in out and out.endswith("[exit 0]"), out


@pytest.mark.skipif(
    not (shutil.which("python3") or "").endswith("/shims/python3"),
    reason="python3 here is not behind a version manager's shims",
)
async def test_pyenv_shims_still_reach_their_python(root: Path) -> None:
    outside = subprocess.run(
        ["python3", "-c", "import sys; print(sys.base_prefix)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    out = await run(root, "python3 -c 'import sys; print(sys.base_prefix)'")
    assert outside in out and out.endswith("[exit 0]"), out
    shims = Path(shutil.which("python3") or "").parent
    readme = shims.parent / "README.md"
    if readme.exists():  # pyenv's own checkout is not shown, only what its shims run
        shown = await run(root, f"cat {readme} >/dev/null && echo readable")
        assert "readable" not in shown, shown


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
async def test_node_from_an_install_prefix_runs_its_global_packages(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = tmp_path / "node-prefix"  # as nvm or `npm -g` with a prefix lays it out
    (prefix / "bin").mkdir(parents=True)
    node = os.path.realpath(shutil.which("node") or "")
    try:
        os.link(node, prefix / "bin/node")
    except OSError:
        shutil.copy2(node, prefix / "bin/node")
    program(
        prefix / "lib/node_modules/hello/index.js",
        "#!/usr/bin/env node\nconsole.log('hello-from-node', process.execPath);\n",
    )
    (prefix / "bin/hello").symlink_to("../lib/node_modules/hello/index.js")
    (prefix / "etc").mkdir()
    (prefix / "etc/npmrc").write_text("//registry.npmjs.org/:_authToken=npm-secret\n")
    monkeypatch.setenv("PATH", f"{prefix}/bin:{SYSTEM_PATH}")
    out = await run(root, f"hello; cat {prefix}/etc/npmrc")
    assert f"hello-from-node {prefix}/bin/node" in out, out
    assert "npm-secret" not in out, out
