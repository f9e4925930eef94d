"""Which folder the agent works on: never the whole home folder, or `/`, by accident.

Editors send a root; some send none, and Kate sends the home folder when it
finds no project marker. Then the project of the open file is used (the
nearest folder holding a root marker), else the file's own folder, and the
person is told. The CLI refuses to start in the home folder or `/` unless
`--workspace` names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT_MARKERS = (
    ".git", ".hg", ".svn", ".jj", ".agentls",
    "pyproject.toml", "setup.py", "setup.cfg", "package.json", "deno.json",
    "Cargo.toml", "go.mod", "pom.xml", "build.gradle", "build.gradle.kts",
    "composer.json", "Gemfile", "mix.exs", "CMakeLists.txt", "meson.build",
    "Makefile", "compile_commands.json",
)  # fmt: skip


class NoProjectRoot(ValueError):
    """Nothing narrower than the home folder to work on; the message says what to do."""


@dataclass(frozen=True, slots=True)
class RootChoice:
    root: Path
    note: str | None = None  # why it is not the root the client sent, for the person


def home() -> Path:
    return Path.home().resolve()


def too_broad(folder: Path) -> bool:
    """The home folder or the filesystem root: never a workspace unless named outright."""
    resolved = folder.resolve()
    return resolved == home() or resolved.parent == resolved


def project_of(file: Path) -> tuple[Path, str | None]:
    """The nearest folder above ``file`` that holds a root marker (and which one), stopping
    below the home folder and `/`; else the file's own folder, with no marker."""
    start = file.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if too_broad(candidate):
            break
        for marker in ROOT_MARKERS:
            if (candidate / marker).exists():
                return candidate, marker
    return folder, None


def choose_root(
    folders: Sequence[Path], file: Path | None = None, recent: Path | None = None
) -> RootChoice:
    """The workspace root for a request about ``file`` (or, lacking one, the file the person
    touched last, ``recent``), given the client's folders (innermost that holds the file)."""
    usable = [f for f in folders if not too_broad(f)]
    if file is not None:
        inside = [f for f in usable if file.resolve().is_relative_to(f.resolve())]
        if inside:
            return RootChoice(max(inside, key=lambda f: len(f.resolve().parts)))
    if usable:
        return RootChoice(usable[0])
    target = file or recent
    sent = _describe(folders)
    if target is None or too_broad(project_of(target)[0]):
        where = "with no file open" if target is None else f"for {target.name}"
        raise NoProjectRoot(
            f"agentls: the editor sent {sent}, and agentls will not work on a whole home "
            f"folder or /; {where} there is no project to narrow to. Open a file inside a "
            "project (a folder with .git, pyproject.toml, package.json, ...) or open the "
            "project's folder, then ask again"
        )
    root, marker = project_of(target)
    why = f"its {marker}" if marker else "the open file's folder; no project marker found"
    return RootChoice(root, f"agentls: the editor sent {sent}, so agentls works in {root} ({why})")


def _describe(folders: Sequence[Path]) -> str:
    if not folders:
        return "no workspace folder"
    broad = folders[0].resolve()
    return "your home folder as the root" if broad == home() else f"{broad} as the root"
