"""Choosing the workspace root: never the home folder or `/` by accident."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.workspace.roots import NoProjectRoot, choose_root, project_of, too_broad


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / "proj" / "pkg" / "deep").mkdir(parents=True)
    (folder / "proj" / "Cargo.toml").write_text("[package]\n")
    (folder / "loose").mkdir()
    (folder / ".git").mkdir()  # a dotfiles repository: home is still no project
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_home_and_slash_are_too_broad(home: Path) -> None:
    assert too_broad(home) and too_broad(Path("/")) and not too_broad(home / "proj")


def test_the_nearest_marker_below_home_wins(home: Path) -> None:
    assert project_of(home / "proj" / "pkg" / "deep" / "x.rs") == (home / "proj", "Cargo.toml")
    assert project_of(home / "loose" / "a.txt") == (home / "loose", None)


def test_a_usable_root_is_kept_and_the_innermost_holds_the_file(home: Path) -> None:
    outer, inner = home / "proj", home / "proj" / "pkg"
    chosen = choose_root([outer, inner], inner / "deep" / "x.rs")
    assert chosen.root == inner and chosen.note is None
    assert choose_root([home, outer]).root == outer  # the home folder is skipped


def test_a_home_root_narrows_to_the_files_project_and_says_so(home: Path) -> None:
    chosen = choose_root([home], None, recent=home / "proj" / "pkg" / "deep" / "x.rs")
    assert chosen.root == home / "proj"
    assert chosen.note is not None and "your home folder as the root" in chosen.note
    assert "(its Cargo.toml)" in chosen.note


def test_nothing_narrower_than_home_is_refused(home: Path) -> None:
    with pytest.raises(NoProjectRoot, match="sent your home folder as the root") as refused:
        choose_root([home], home / "notes.txt")
    assert "for notes.txt there is no project to narrow to" in str(refused.value)
    with pytest.raises(NoProjectRoot, match=r"sent no workspace folder, .* with no file open"):
        choose_root([])
