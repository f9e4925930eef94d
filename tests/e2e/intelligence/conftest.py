"""Real language servers for the agent: basedpyright and ruff (PyPI), typescript-language-server
(npm, in node/), found on a PATH that holds only them and the system."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

VENV_BIN = Path(sys.executable).parent
NODE_BIN = Path(__file__).parent / "node" / "node_modules" / ".bin"
# No ~/.cargo/bin or ~/go/bin: only the servers the tests mean are found.
SERVER_PATH = os.pathsep.join([str(VENV_BIN), str(NODE_BIN), "/usr/local/bin", "/usr/bin", "/bin"])


def needs(command: str, how: str) -> None:
    if shutil.which(command, path=SERVER_PATH) is None:
        pytest.fail(f"{command} is not installed for the tests: {how}")


@pytest.fixture
def pyright_path() -> str:
    needs("basedpyright-langserver", "pip install -e '.[dev]' (basedpyright)")
    return SERVER_PATH


@pytest.fixture
def ts_path() -> str:
    needs("typescript-language-server", "cd tests/e2e/intelligence/node && npm ci")
    return SERVER_PATH


def user_settings(tmp_path: Path, settings: dict[str, Any]) -> dict[str, str]:
    """The person's settings file (XDG_CONFIG_HOME/agentls/settings.json), as env."""
    config = tmp_path / "config"
    (config / "agentls").mkdir(parents=True, exist_ok=True)
    (config / "agentls" / "settings.json").write_text(json.dumps(settings))
    return {"XDG_CONFIG_HOME": str(config)}


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"name": "edit_file", "input": {"path": path, "old_text": old, "new_text": new}}


def read(path: str) -> dict[str, Any]:
    return {"name": "read_file", "input": {"path": path}}
