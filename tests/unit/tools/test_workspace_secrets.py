"""Secret files behind links, and search over lines holding a secret."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.workspace import filesearch, paths
from agentls.workspace.local import LocalWorkspace

KEY = "sk-ant-api03-" + "Ab3" * 15


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "conf").mkdir(parents=True)
    (root / "conf" / "secrets.yaml").write_text("password: swordfish\n")
    (root / ".env").write_text("TOKEN=abc\n")
    os.link(root / "conf" / "secrets.yaml", root / "notes.txt")
    (root / "link.txt").symlink_to("conf/secrets.yaml")
    (root / "plain.txt").write_text(f"key = {KEY}\nnothing here\n")
    return root.resolve()


def test_links_are_the_secret_file(ws: Path) -> None:
    secrets = paths.SecretFiles(ws)
    assert secrets.secret_behind("notes.txt") == "conf/secrets.yaml"
    assert secrets.secret_behind("link.txt") == "conf/secrets.yaml"
    assert secrets.secret_behind("plain.txt") is None
    assert secrets.is_secret("conf/secrets.yaml") and secrets.is_secret("notes.txt")


def test_the_workspace_names_a_link_by_its_secret_file(ws: Path) -> None:
    workspace = LocalWorkspace(ws)
    assert workspace.relative("notes.txt") == "conf/secrets.yaml"
    assert workspace.relative("./link.txt") == "conf/secrets.yaml"
    assert workspace.relative("plain.txt") == "plain.txt"


def test_an_unfinished_scan_fails_closed(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "_SCAN_LIMIT", 1)
    os.link(ws / "plain.txt", ws / "plain-copy.txt")
    assert paths.SecretFiles(ws).is_secret("plain-copy.txt")


@pytest.mark.parametrize("use_rg", [True, False], ids=["ripgrep", "python"])
async def test_search_skips_secret_files_and_matches_masked_lines(ws: Path, use_rg: bool) -> None:
    secrets = paths.SecretFiles(ws)

    async def found(pattern: str, base: str = ".") -> list[str]:
        result = await filesearch.search(
            ws, pattern, base, None, 50, use_ripgrep=use_rg, secret=secrets.is_secret
        )
        return [f"{m.path}:{m.text}" for m in result.matches]

    assert await found("swordfish") == []
    assert await found("swordfish", "conf/secrets.yaml") == [
        "conf/secrets.yaml:password: swordfish"
    ]
    assert await found(KEY[:14]) == await found(KEY[:13] + "Q") == []
    shown = await found("key = ")
    assert shown and KEY not in shown[0] and "masked" in shown[0]
