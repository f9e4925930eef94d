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


def _atime_works(folder: Path) -> bool:
    probe = folder / "atime-probe"
    probe.write_text("x")
    os.utime(probe, (0, probe.stat().st_mtime))
    probe.read_text()
    return probe.stat().st_atime > 0


@pytest.mark.skipif(not filesearch.ripgrep_path(True), reason="ripgrep is not installed")
async def test_ripgrep_does_not_even_open_secret_files(ws: Path) -> None:
    if not _atime_works(ws):
        pytest.skip("this file system does not record reads")
    (ws / "Deploy.PEM").write_text("swordfish\n")
    (ws / "vault").mkdir()
    (ws / "vault" / "secrets.toml").write_text("swordfish\n")
    (ws / "secrets.d").mkdir()
    (ws / "secrets.d" / "plain.txt").write_text("swordfish in a folder\n")
    for rel in ("Deploy.PEM", "vault/secrets.toml", "plain.txt"):
        os.utime(ws / rel, (0, (ws / rel).stat().st_mtime))
    secrets = paths.SecretFiles(ws)
    result = await filesearch.search(
        ws, "swordfish|nothing", ".", None, 50, use_ripgrep=True,
        secret=secrets.is_secret, secret_globs=secrets.patterns,
    )  # fmt: skip
    assert [m.path for m in result.matches] == ["plain.txt", "secrets.d/plain.txt"]
    assert (ws / "Deploy.PEM").stat().st_atime == 0
    assert (ws / "vault/secrets.toml").stat().st_atime == 0  # (a hard link is read, not shown)
    assert (ws / "plain.txt").stat().st_atime > 0  # the control: a searched file was read


@pytest.mark.skipif(not filesearch.ripgrep_path(True), reason="ripgrep is not installed")
async def test_both_engines_agree_with_secret_files(ws: Path) -> None:
    (ws / "secrets.d").mkdir()
    (ws / "secrets.d" / "a.txt").write_text("swordfish\n")
    (ws / "KEY.Pem").write_text("swordfish\n")
    (ws / "id_rsa.pub").write_text("swordfish public\n")
    secrets = paths.SecretFiles(ws)
    found = [
        await filesearch.search(
            ws, "swordfish", ".", None, 50, use_ripgrep=engine,
            secret=secrets.is_secret, secret_globs=secrets.patterns,
        )
        for engine in (True, False)
    ]  # fmt: skip
    assert found[0].matches == found[1].matches
    assert [m.path for m in found[0].matches] == ["id_rsa.pub", "secrets.d/a.txt"]
