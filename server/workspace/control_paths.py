"""The control files that exist in a workspace, found at every command, cheaply.

The sandbox binds each of them read-only (sandbox.py), so it must know all of
them when a command starts: that is a walk of the whole workspace before every
command. Each folder's findings are kept with its inode and modification time.
A folder's mtime changes whenever an entry is added, removed or renamed in it,
so a folder whose mtime is unchanged has the same entries, and a repeated walk
costs one ``stat`` per folder. A folder changed less than ``_RACY_NS`` before it
was read is read again next time: a change within the file system's clock tick
of the reading would leave its mtime as it was.

Control folders themselves (``.git``, ``.vscode``…) are bound whole and never
walked into; links are never followed.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from agentls.workspace.control import CONTROL_NAMES, CONTROL_SUBFOLDERS
from agentls.workspace.globs import any_path_matcher

# A folder changed this recently before it was read may change again unseen.
_RACY_NS = 2_000_000_000
# Workspaces whose folders are remembered (one per workspace and protectedPaths list).
_KEPT_TREES = 16
# No real name holds a NUL: a path under a folder with this name stands for "any path".
_ANY = "\0"


@dataclass(frozen=True, slots=True)
class ControlPaths:
    """Real absolute paths. ``read_only``: control files and folders, bound read-only
    (none inside another). ``fixed``: folders that hold one below them, bound onto
    themselves so they cannot be renamed or removed (moving a parent would carry the
    control file away and let a new one be written in its place)."""

    read_only: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()


class _Kind(Enum):
    WHOLE = 1  # the entry itself, bound read-only
    LINK = 2  # a link: its real path, when that is inside the workspace
    GIT_FILE = 3  # a `.git` file: itself, and the git dir it names
    FIXED = 4  # a protected folder whose contents are not all protected: fixed, walked into


@dataclass(frozen=True, slots=True)
class _Folder:
    ino: int
    mtime_ns: int
    settled: bool  # changed long enough before it was read that a later change shows
    controls: tuple[tuple[str, _Kind], ...]  # by path relative to the root
    folders: tuple[str, ...]  # sub-folders to walk, relative to the root


def find(root: Path | str, protected: tuple[str, ...] = ()) -> ControlPaths:
    """Every control file and folder under ``root`` (a real path), at any depth:
    ``CONTROL_NAMES``, ``CONTROL_SUBFOLDERS`` and paths matching the ``protected``
    globs (``permissions.protectedPaths``, relative to ``root``)."""
    key = (str(root), protected)
    with _TREES_LOCK:
        tree = _TREES.get(key)
        if tree is None:
            tree = _TREES[key] = _Tree(str(root), protected)
            while len(_TREES) > _KEPT_TREES:
                _TREES.popitem(last=False)
        else:
            _TREES.move_to_end(key)
    return tree.find()


class _Tree:
    def __init__(self, root: str, protected: tuple[str, ...]) -> None:
        self.root = root.rstrip("/") or "/"
        self.matches: Callable[[str], bool] | None = (
            any_path_matcher(protected) if protected else None
        )
        self.folders: dict[str, _Folder] = {}  # by path relative to the root ("" is the root)
        self.lock = threading.Lock()  # one walk at a time; the next one finds it done

    def find(self) -> ControlPaths:
        with self.lock:
            return self._walk()

    def _walk(self) -> ControlPaths:
        kept: dict[str, _Folder] = {}
        read_only: set[str] = set()
        fixed: set[str] = set()
        pending = [""]
        while pending:
            rel = pending.pop()
            folder = self._folder(rel)
            if folder is None:
                continue
            kept[rel] = folder
            for child, kind in folder.controls:
                self._found(child, kind, read_only, fixed)
            pending.extend(folder.folders)
        self.folders = kept  # folders no longer there are forgotten
        return settle([self.root], read_only, fixed)

    def _folder(self, rel: str) -> _Folder | None:
        path = self._abs(rel)
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None  # replaced by a file or a link since its parent was read
        known = self.folders.get(rel)
        if (
            known is not None
            and known.settled
            and known.ino == st.st_ino
            and known.mtime_ns == st.st_mtime_ns
        ):
            return known
        reading = time.time_ns()
        controls: list[tuple[str, _Kind]] = []
        folders: list[str] = []
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    child = f"{rel}/{entry.name}" if rel else entry.name
                    try:
                        is_link = entry.is_symlink()
                        is_dir = not is_link and entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    kind = self._kind(entry.name, child, is_dir=is_dir, is_link=is_link)
                    if kind is not None:
                        controls.append((child, kind))
                    if is_dir and kind in (None, _Kind.FIXED):
                        folders.append(child)
        except OSError:  # unreadable or gone: nothing found in it
            pass
        return _Folder(
            ino=st.st_ino,
            mtime_ns=st.st_mtime_ns,
            settled=st.st_mtime_ns < reading - _RACY_NS,
            controls=tuple(controls),
            folders=tuple(folders),
        )

    def _kind(self, name: str, rel: str, *, is_dir: bool, is_link: bool) -> _Kind | None:
        control = name in CONTROL_NAMES or any(
            rel == sub or rel.endswith("/" + sub) for sub in CONTROL_SUBFOLDERS
        )
        if not control and self.matches is not None:
            if is_dir:
                if self.matches(f"{rel}/{_ANY}") and self.matches(f"{rel}/{_ANY}/{_ANY}"):
                    control = True  # every path below it is protected: the folder whole
                elif self.matches(rel):
                    return _Kind.FIXED
            else:
                control = self.matches(rel)
        if not control:
            return None
        if is_link:
            return _Kind.LINK
        if name == ".git" and not is_dir:
            return _Kind.GIT_FILE
        return _Kind.WHOLE

    def _found(self, rel: str, kind: _Kind, read_only: set[str], fixed: set[str]) -> None:
        path = self._abs(rel)
        if kind is _Kind.FIXED:
            fixed.add(path)
        elif kind is _Kind.LINK:
            # The link itself stays replaceable (a mount cannot sit on a link); what it
            # leads to is protected when the sandbox shows it.
            real = os.path.realpath(path)
            if self._strictly_inside(real) and os.path.exists(real):
                read_only.add(real)
        else:
            read_only.add(path)
            if kind is _Kind.GIT_FILE:
                git_dir = _git_dir_of(path)
                if git_dir is not None and self._strictly_inside(git_dir):
                    read_only.add(git_dir)

    def _abs(self, rel: str) -> str:
        if not rel:
            return self.root
        return f"{self.root}/{rel}" if self.root != "/" else f"/{rel}"

    def _strictly_inside(self, real: str) -> bool:
        # The root itself, or a folder above it, cannot be made read-only without
        # making the whole workspace so: the permission gate alone guards such a link.
        return real.startswith(self.root.rstrip("/") + "/")


def _git_dir_of(git_file: str) -> str | None:
    """The real path a submodule's or worktree's ``.git`` file names (``gitdir: PATH``)."""
    try:
        with open(git_file, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    lines = head.decode("utf-8", "replace").splitlines()
    first = lines[0] if lines else ""
    target = first.removeprefix("gitdir:").strip()
    if not first.startswith("gitdir:") or not target:
        return None
    real = os.path.realpath(os.path.join(os.path.dirname(git_file), target))
    return real if os.path.isdir(real) else None


def settle(bases: Iterable[str], read_only: Iterable[str], fixed: Iterable[str]) -> ControlPaths:
    """None inside another read-only path, and every folder between a base (the
    workspace, a writable folder) and a read-only or fixed path fixed too."""
    kept = _outermost(set(read_only))
    held = set(fixed)
    prefixes = [b.rstrip("/") + "/" for b in bases]
    for path in (*kept, *held):
        parent = os.path.dirname(path)
        while any(parent.startswith(prefix) for prefix in prefixes):
            held.add(parent)
            parent = os.path.dirname(parent)
    held = {p for p in held if not _inside_any(p, kept)}
    return ControlPaths(read_only=tuple(kept), fixed=tuple(sorted(held, key=_parts)))


def _parts(path: str) -> list[str]:
    """Sorted by this, a folder comes just before everything in it."""
    return path.split("/")


def _outermost(paths: set[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(paths, key=_parts):
        if not kept or not (path == kept[-1] or path.startswith(kept[-1] + "/")):
            kept.append(path)
    return kept


def _inside_any(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f + "/") for f in folders)


_TREES: OrderedDict[tuple[str, tuple[str, ...]], _Tree] = OrderedDict()
_TREES_LOCK = threading.Lock()
