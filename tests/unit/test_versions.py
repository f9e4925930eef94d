"""One version everywhere: pyproject's is the source; every client says the same."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from agentls import __version__
from agentls.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def found(pattern: str, relative: str) -> str:
    match = re.search(pattern, (ROOT / relative).read_text(), re.MULTILINE)
    assert match, f"no version in {relative}"
    return match.group(1)


def test_every_client_has_the_packages_version() -> None:
    versions = {
        "agentls.__version__": __version__,
        "vscode-client/package.json": json.loads((ROOT / "vscode-client/package.json").read_text())[
            "version"
        ],
        "vscode-client/package-lock.json": json.loads(
            (ROOT / "vscode-client/package-lock.json").read_text()
        )["version"],
        "editors/neovim/lua/agentls/version.lua": found(
            r"^return '([^']+)'", "editors/neovim/lua/agentls/version.lua"
        ),
        "editors/emacs/agentls.el": found(r"^;; Version: (\S+)$", "editors/emacs/agentls.el"),
        "editors/zed/extension.toml": tomllib.loads(
            (ROOT / "editors/zed/extension.toml").read_text()
        )["version"],
        "editors/zed/Cargo.toml": tomllib.loads((ROOT / "editors/zed/Cargo.toml").read_text())[
            "package"
        ]["version"],
    }
    assert {name: v for name, v in versions.items() if v != VERSION} == {}


def test_agentls_version_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"agentls {VERSION}"
