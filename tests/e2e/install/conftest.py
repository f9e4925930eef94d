"""The package built from this tree, and a clean environment to run what installs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DEV_BIN = Path(sys.executable).parent  # pipx and uv come with the dev extras


def dev_tool(name: str) -> str:
    found = DEV_BIN / name
    if not found.exists():
        pytest.fail(f"{name} is missing from {DEV_BIN}: pip install -e '.[dev]' installs it")
    return str(found)


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, the wheel built from the sdist (so the sdist is complete)."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [dev_tool("uv"), "build", "--out-dir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def clean_env(home: Path, *bin_dirs: Path) -> dict[str, str]:
    """A person's environment with nothing of this checkout: own HOME, no keys, no .venv."""
    venv_bin = str(DEV_BIN)
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    path = [p for p in path if not (Path(p) / "agentls").exists()]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("ANTHROPIC_", "OPENAI_", "AGENTLS_", "XDG_", "VIRTUAL_ENV", "PIPX_", "UV_")
        )
    }
    env |= {"HOME": str(home), "PATH": os.pathsep.join([*map(str, bin_dirs), *path])}
    env["AGENTLS_WARM"] = "0"  # each ask in its own process: none left serving (tests/conftest.py)
    # Downloads stay in the person's caches: a fresh install, without fetching it all again.
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR") or str(cache / "pip")
    env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR") or str(cache / "uv")
    return env


def copy_demo(target: Path) -> Path:
    workspace = target / "demo"
    shutil.copytree(ROOT / "server" / "data" / "demo" / "workspace", workspace)
    return workspace
