"""Finding the control files of a workspace before every command: at any depth, the
git dirs that `.git` files name, protectedPaths, links to their real paths, the
folders above them fixed; a repeated walk reads no folder that did not change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.workspace import control_paths


def make(root: Path, *paths: str) -> None:
    for rel in paths:
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")


def settle(root: Path) -> None:
    """Every folder changed long ago, as a workspace is between commands."""
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink())]:
        os.utime(folder, (1_000_000_000, 1_000_000_000), follow_symlinks=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    make(ws, ".git/config", ".git/hooks/", "src/a.py", "src/pkg/.vscode/tasks.json",
         "vendor/lib/.git", "gitdirs/lib/config", "docs/.github/workflows/ci.yml",
         "docs/.github/ISSUE_TEMPLATE.md", "deep/a/b/c/.envrc", "deep/a/b/c/.agentls/s.json",
         "Makefile", "sub/Makefile", "deploy/run.sh", "deploy/x/y.sh", "conf/a.yml",
         "conf/inner/b.yml", "node_modules/p/index.js")  # fmt: skip
    (ws / "vendor/lib/.git").write_text("gitdir: ../../gitdirs/lib\n")
    return ws


def test_control_files_at_any_depth_and_the_folders_above_them(root: Path) -> None:
    found = control_paths.find(root)
    assert found.read_only == tuple(
        str(root / p)
        for p in (".git", "deep/a/b/c/.agentls", "deep/a/b/c/.envrc",
                  "docs/.github/workflows", "gitdirs/lib", "src/pkg/.vscode", "vendor/lib/.git")
    )  # fmt: skip
    # Every folder between the workspace and one of them: a mount point cannot be moved.
    assert found.fixed == tuple(
        str(root / p)
        for p in ("deep", "deep/a", "deep/a/b", "deep/a/b/c", "docs", "docs/.github",
                  "gitdirs", "src", "src/pkg", "vendor", "vendor/lib")
    )  # fmt: skip


def test_protected_paths_by_their_globs(root: Path) -> None:
    found = control_paths.find(root, ("Makefile", "deploy/**", "conf/*"))
    ro = {Path(p).relative_to(root).as_posix() for p in found.read_only}
    fixed = {Path(p).relative_to(root).as_posix() for p in found.fixed}
    assert {"Makefile", "deploy", "conf/a.yml"} <= ro  # deploy/** holds all below it
    assert "sub/Makefile" not in ro and "conf/inner/b.yml" not in ro
    assert "conf/inner" in fixed and "conf/inner" not in ro  # matched itself, not its files


def test_a_linked_control_path_protects_its_real_path_inside_the_workspace(
    root: Path, tmp_path: Path
) -> None:
    make(root, "shared/vscode/tasks.json")
    (root / "src/.vscode").symlink_to(root / "shared/vscode")
    (tmp_path / "outside").mkdir()
    (root / "deep/.envrc").symlink_to(tmp_path / "outside")
    (root / "up/").mkdir()
    (root / "up/.agentls").symlink_to(root)  # the workspace itself: the gate alone guards it
    found = control_paths.find(root)
    assert str(root / "shared/vscode") in found.read_only
    assert not any(p.startswith(str(tmp_path / "outside")) for p in found.read_only)
    assert str(root) not in found.read_only


def test_a_repeated_walk_reads_only_the_folders_that_changed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settle(root)
    first = control_paths.find(root)
    read: list[str] = []
    scandir = os.scandir

    def counting(path: str) -> object:
        read.append(path)
        return scandir(path)

    monkeypatch.setattr(control_paths.os, "scandir", counting)
    assert control_paths.find(root) == first
    assert read == []  # one stat per folder, no folder read again
    (root / "src/.envrc").write_text("x\n")  # src's mtime moves
    again = control_paths.find(root)
    assert read == [str(root / "src")]
    assert str(root / "src/.envrc") in again.read_only
    (root / "src/.envrc").unlink()
    assert str(root / "src/.envrc") not in control_paths.find(root).read_only


def test_a_folder_changed_just_before_it_was_read_is_read_again(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settle(root)
    os.utime(root / "src", None)  # changed now: a change in the same clock tick would not show
    control_paths.find(root)
    read: list[str] = []
    scandir = os.scandir
    monkeypatch.setattr(
        control_paths.os, "scandir", lambda path: read.append(path) or scandir(path)
    )
    control_paths.find(root)
    assert read == [str(root / "src")]
