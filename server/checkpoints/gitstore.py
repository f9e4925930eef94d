"""A private git repository per workspace, holding snapshots of its files.

Nothing is written into the person's repository: the snapshots live in
`<state>/checkpoints/<id>.git`, with the workspace as work tree and a private
index, and borrow the workspace's own objects through
`objects/info/alternates`, so unchanged files cost nothing. HEAD, the index,
the stash and `git log --all` of the person's repository never see them. A
workspace that is not a git repository works the same way, storing every
file once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import os
import secrets
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

from agentls.checkpoints.objects import (
    Entry,
    NotAFile,
    disk_entry,
    write_commit,
    write_object,
    write_ref,
)
from agentls.workspace.atomic import replace_atomically
from agentls.workspace.control import helper_path

REF_PREFIX = "refs/agentls/"
# Never snapshotted: bulky or machine-made folders where no .gitignore says so, other
# version control, and editors' scratch files (the same ones the file watcher skips, so
# a snapshot never holds what the watcher cannot see change).
DEFAULT_EXCLUDES = (
    ".git/",
    "node_modules/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".tox/",
    ".hg/",
    ".svn/",
    ".idea/",
    ".hypothesis/",
    "*.py[cod]",
    "*.sw?",
    "*~",
    ".#*",
    ".DS_Store",
    "flycheck_*",
    "*.___jb_???___",
)
_IDENTITY = "agentls <agentls@localhost>"
# Every call: no automatic gc or maintenance (pruning is ours, on our schedule), and an
# index that is cheap to rewrite (split: a small file over a shared base; version 4).
_CONFIG = tuple(
    arg
    for option in (
        "gc.auto=0",
        "gc.autoDetach=false",
        "maintenance.auto=false",
        "core.splitIndex=true",
        "index.version=4",
        "core.autocrlf=false",
        "core.fsmonitor=false",
    )
    for arg in ("-c", option)
)
STALE_INDEX_SECONDS = 7 * 86400
_P = ParamSpec("_P")
_T = TypeVar("_T")
_CREATING: dict[Path, threading.Lock] = {}
_CREATING_GUARD = threading.Lock()


class GitError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    status: str  # "A" added, "M" modified, "D" deleted (from the older snapshot's side)


class GitStore:
    """One workspace's snapshots. An instance keeps an index of its own between
    snapshots, so a snapshot told which paths changed looks at those alone.

    Every public operation runs whole on a worker thread (its git processes, scans
    and object writes), one at a time per instance: the event loop only awaits it.
    """

    def __init__(self, state_dir: Path, root: Path) -> None:
        # Where the store is, worked out when first needed (on a worker thread): a
        # session with checkpoints off never needs it.
        self._given = (state_dir, root)
        self._ready = False
        self._index: Path | None = None  # this instance's own, warm between snapshots
        self._trees: dict[str, str] = {}  # commit -> tree, for snapshots made here
        self._overlaid: set[str] = set()  # paths the last snapshot took from buffers
        # What this instance's index holds for some paths (None: not in it), learnt
        # from git or recorded here; files that stay the same are then never rescanned.
        self._known: dict[str, Entry | None] = {}
        self._tree: str | None = None  # the last snapshot's tree and commit
        self._last: str | None = None
        self._diffs: dict[tuple[str, str], list[Change]] = {}  # seen while snapshotting
        self._lock = threading.Lock()  # the instance's state is one operation's at a time

    @functools.cached_property
    def root(self) -> Path:
        return self._given[1].resolve()

    @functools.cached_property
    def git_dir(self) -> Path:
        digest = hashlib.sha256(str(self.root).encode()).hexdigest()[:16]
        return self._given[0] / "checkpoints" / f"{digest}.git"

    async def _off_loop(self, work: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        return await asyncio.to_thread(self._locked, functools.partial(work, *args, **kwargs))

    def _locked(self, work: Callable[[], _T]) -> _T:
        with self._lock:
            return work()

    def _env(self, git_dir: Path | None, index: Path | None) -> dict[str, str]:
        # Nothing inherited may point git elsewhere (GIT_OBJECT_DIRECTORY, GIT_COMMON_DIR,
        # a hook's GIT_INDEX_FILE...): objects go to the private store and nowhere else.
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1")
        env["PATH"] = helper_path(self.root)  # never a git the workspace put on PATH
        if git_dir is not None:
            env.update(
                GIT_DIR=str(git_dir),
                GIT_WORK_TREE=str(self.root),
                GIT_OBJECT_DIRECTORY=str(git_dir / "objects"),
            )
        if index is not None:
            env["GIT_INDEX_FILE"] = str(index)
        return env

    async def git(
        self,
        *args: str,
        stdin: bytes | None = None,
        check: bool = True,
        private: bool = True,
        git_dir: Path | None = None,
        index: Path | None = None,
    ) -> bytes:
        """Run git on the private repository (``private`` False: no repository at all)."""
        return await self._off_loop(
            self._git, *args, stdin=stdin, check=check, private=private, git_dir=git_dir,
            index=index,
        )  # fmt: skip

    def _git(
        self,
        *args: str,
        stdin: bytes | None = None,
        check: bool = True,
        private: bool = True,
        git_dir: Path | None = None,
        index: Path | None = None,
    ) -> bytes:
        env = self._env((git_dir or self.git_dir) if private else None, index)
        done = subprocess.run(
            ["git", *_CONFIG, *args],
            cwd=self.root,
            env=env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
        if check and done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip()[:300]
            raise GitError(f"git {args[0]} failed: {err}")
        return done.stdout

    async def ready(self) -> None:
        if not self._ready:
            await self._off_loop(self._make_ready)

    def _make_ready(self) -> None:
        if self._ready:
            return
        if not (self.git_dir / "HEAD").exists():
            # Sessions of one workspace starting together: one makes the store, the rest
            # wait for it (other processes race through the rename in _create).
            with _CREATING_GUARD:
                creating = _CREATING.setdefault(self.git_dir, threading.Lock())
            with creating:
                if not (self.git_dir / "HEAD").exists():
                    self._create()
        person = self.root / ".git"
        alternates = self.git_dir / "objects" / "info" / "alternates"
        if (person / "objects").is_dir() and not alternates.exists():
            replace_atomically(alternates, str((person / "objects").resolve()) + "\n")
        exclude = self.git_dir / "info" / "exclude"
        wanted = "\n".join(DEFAULT_EXCLUDES) + "\n"
        if not exclude.exists() or exclude.read_text(encoding="utf-8") != wanted:
            exclude.parent.mkdir(exist_ok=True)
            replace_atomically(exclude, wanted)  # stores made by older versions
        _remove_stale_indexes(self.git_dir)
        self._ready = True

    def _create(self) -> None:
        """Made aside, then renamed into place: sessions (and processes) of one workspace
        may all start at once, and only one of them gets to make the repository."""
        self.git_dir.parent.mkdir(parents=True, exist_ok=True)
        fresh = self.git_dir.with_name(f"{self.git_dir.name}.{_unique()}.new")
        try:
            self._git("init", "--quiet", "--bare", str(fresh), private=False)
            self._git("config", "core.bare", "false", git_dir=fresh)
            self._git("config", "core.autocrlf", "false", git_dir=fresh)
            self._git("config", "gc.auto", "0", git_dir=fresh)  # pruning is ours
            try:
                fresh.rename(self.git_dir)
            except OSError:
                if not (self.git_dir / "HEAD").exists():
                    raise  # not a lost race: a real failure
        finally:
            shutil.rmtree(fresh, ignore_errors=True)

    async def snapshot(
        self,
        ref: str,
        overlays: Mapping[str, str | None] | None = None,
        *,
        changed: Iterable[str] | None = None,
    ) -> str:
        """Record the work tree (plus unsaved buffers in ``overlays``) as a commit under ``ref``.

        ``changed``: every path (file or folder) that may differ from this instance's
        previous snapshot; only those are looked at. None (or no previous snapshot
        here) looks at the whole tree, which costs a stat per file.
        """
        return await self._off_loop(
            self._snapshot,
            ref,
            None if overlays is None else dict(overlays),
            None if changed is None else set(changed),
        )

    def _snapshot(
        self,
        ref: str,
        overlays: Mapping[str, str | None] | None,
        changed: Iterable[str] | None,
    ) -> str:
        self._make_ready()
        index = self._own_index()
        diff: list[Change] | None = None  # what changed since the last snapshot, if known
        if changed is None or not self._warm(index):
            self._scan_all(index)
            self._known.clear()
        else:
            diff = self._update(index, set(changed) | self._overlaid)
        if overlays or self._overlaid:
            diff = None
        for path in self._overlaid | set(overlays or {}):
            self._known.pop(path, None)
        self._overlaid = set(overlays or {})
        if overlays:
            lines = []
            for path, text in overlays.items():
                if text is None:
                    lines.append(f"0 {'0' * 40}\t{path}")  # mode 0: out of the index
                else:
                    blob = write_object(self.git_dir, "blob", text.encode())
                    lines.append(f"100644 {blob}\t{path}")
            self._git(
                "update-index",
                "--index-info",
                index=index,
                stdin=("\n".join(lines) + "\n").encode(),
            )
        if diff == [] and self._tree is not None:
            tree = self._tree  # nothing moved: the same tree
        else:
            tree = (self._git("write-tree", index=index)).strip().decode()
        commit = write_commit(self.git_dir, tree, f"agentls checkpoint {ref}", _IDENTITY)
        write_ref(self.git_dir, REF_PREFIX + ref, commit)
        if diff is not None and self._last is not None:
            self._diffs[(self._last, commit)] = diff
            if len(self._diffs) > 64:  # only the latest turns ask
                del self._diffs[next(iter(self._diffs))]
        self._trees[commit], self._tree, self._last = tree, tree, commit
        return commit

    def _own_index(self) -> Path:
        if self._index is None:
            # Started from the last published index: unchanged files are not hashed again.
            self._index = self.git_dir / f"index.{_unique()}"
            with contextlib.suppress(FileNotFoundError):
                shutil.copyfile(self.git_dir / "index", self._index)
        return self._index

    def _scan_all(self, index: Path) -> None:
        try:
            self._git("add", "--all", "--", ".", index=index)
        except GitError:
            if not self._trees and index.exists():  # a published index gone bad: start afresh
                index.unlink()
                self._git("add", "--all", "--", ".", index=index)
            else:
                raise
        # Published for the next instance (another session, a later process).
        shared = self.git_dir / f"index.{_unique()}.copy"
        try:
            shutil.copyfile(index, shared)
            shared.replace(self.git_dir / "index")
        finally:
            shared.unlink(missing_ok=True)

    def _warm(self, index: Path) -> bool:
        return bool(self._trees) and index.exists()

    async def unchanged(self, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` that hold just what this instance's last snapshot has."""
        return await self._off_loop(self._unchanged, set(paths))

    def _unchanged(self, wanted: set[str]) -> set[str]:
        index = self._own_index()
        if not self._warm(index):
            return set()
        self._learn(wanted)
        same = set()
        for path in wanted:
            if path in self._known:
                with contextlib.suppress(NotAFile, OSError):
                    if disk_entry(self.root, path, None) == self._known[path]:
                        same.add(path)
        return same

    def _learn(self, paths: set[str]) -> None:
        """Read what the last snapshot holds for paths not known yet (its tree is the
        index's content, and far cheaper to read than the index)."""
        unknown = sorted(p for p in paths if p not in self._known)
        if not unknown or self._tree is None:
            return
        listed = self._git(
            "--literal-pathspecs", "ls-tree", "-z", "--full-tree", self._tree, "--", *unknown
        )
        found: dict[str, str] = {}
        for record in listed.split(b"\0"):
            if record:
                meta, name = record.split(b"\t", 1)
                mode, kind, oid = meta.decode().split()
                found[name.decode("utf-8", "surrogateescape")] = f"{kind} {mode} {oid}"
        for path in unknown:
            kind, _, rest = found.get(path, "none").partition(" ")
            if kind == "blob":
                mode, _, oid = rest.partition(" ")
                self._known[path] = (mode, oid)
            elif kind == "none":
                self._known[path] = None
            # a folder (or a submodule) is not one entry: left unknown, git looks at it

    def _update(self, index: Path, paths: set[str]) -> list[Change] | None:
        """Bring the index up to date for ``paths``: tracked files straight from disk
        here; new, ignored or odd ones (and folders) through git, which knows the rules.
        Returns what changed, when it was all seen here."""
        self._learn(paths)
        lines, by_git, diff = [], [], []
        for path in sorted(paths):
            if path not in self._known or self._known[path] is None:
                if path in self._known and not os.path.lexists(self.root / path):
                    continue  # neither recorded nor there
                by_git.append(path)
                continue
            try:
                now = disk_entry(self.root, path, self.git_dir)
            except (NotAFile, OSError):
                by_git.append(path)
                continue
            old = self._known[path]
            if now != old:
                lines.append(f"{now[0]} {now[1]}\t{path}" if now else f"0 {'0' * 40}\t{path}")
                self._known[path] = now
                diff.append(Change(path, _status(old, now)))
        if lines:
            self._git(
                "update-index",
                "--index-info",
                index=index,
                stdin=("\n".join(lines) + "\n").encode(),
            )
        if by_git:
            self._scan_paths(index, by_git)
            return None
        return diff

    def _scan_paths(self, index: Path, paths: list[str]) -> None:
        # What those paths now hold: tracked entries under them, and files under them
        # that are new and not ignored; update-index drops what is gone from disk.
        listed = self._git(
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
            "--",
            *_literal(paths),
            index=index,
        )
        names = {n for n in listed.split(b"\0") if n and not n.endswith(b"/")}
        if names:
            self._git(
                "update-index",
                "--add",
                "--remove",
                "--replace",
                "-z",
                "--stdin",
                index=index,
                stdin=b"\0".join(sorted(names)) + b"\0",
            )
        for name in names:
            self._known.pop(name.decode("utf-8", "surrogateescape"), None)
        for path in paths:
            self._known.pop(path, None)

    def close(self) -> None:
        """Drop this instance's index (the published one stays for the next); blocks
        until an operation under way ends (call it off the loop: ``aclose``)."""
        with self._lock:
            self._close()

    async def aclose(self) -> None:
        await self._off_loop(self._close)

    def _close(self) -> None:
        if self._index is not None:
            self._index.unlink(missing_ok=True)
            self._index = None
        self._trees.clear()
        self._known.clear()
        self._diffs.clear()
        self._tree = self._last = None

    async def changes(self, before: str, after: str) -> list[Change]:
        return await self._off_loop(self._changes, before, after)

    def _changes(self, before: str, after: str) -> list[Change]:
        if before == after or self._trees.get(before, "-") == self._trees.get(after):
            return []
        if (before, after) in self._diffs:
            return sorted(self._diffs[(before, after)], key=lambda c: c.path)
        out = self._git("diff-tree", "-r", "--no-renames", "--name-status", "-z", before, after)
        fields = [f for f in out.decode("utf-8", "surrogateescape").split("\0") if f]
        return [Change(fields[i + 1], fields[i][0]) for i in range(0, len(fields) - 1, 2)]

    async def read(self, commit: str, path: str) -> bytes | None:
        """The file's bytes in a snapshot, or None when it was not there."""
        return await self._off_loop(self._read, commit, path)

    def _read(self, commit: str, path: str) -> bytes | None:
        out = self._git("cat-file", "blob", f"{commit}:{path}", check=False)
        if not out and not self._exists(commit, path):
            return None
        return out

    def _exists(self, commit: str, path: str) -> bool:
        out = self._git("ls-tree", "--name-only", commit, "--", path, check=False)
        return bool(out.strip())

    async def prune(self, keep: int, max_age_days: float) -> int:
        """Drop checkpoints beyond the newest ``keep`` or older than the age; returns how many."""
        return await self._off_loop(self._prune, keep, max_age_days)

    def _prune(self, keep: int, max_age_days: float) -> int:
        self._make_ready()
        out = self._git(
            "for-each-ref",
            "--sort=-committerdate",
            "--format=%(refname) %(committerdate:unix)",
            REF_PREFIX,
        )
        refs = [line.split() for line in out.decode().splitlines() if line.strip()]
        cutoff = time.time() - max_age_days * 86400
        doomed = [
            name for index, (name, stamp) in enumerate(refs) if index >= keep or int(stamp) < cutoff
        ]
        for name in doomed:
            self._git("update-ref", "-d", name)
        if doomed:
            # Not --expire=now: the loose objects of a snapshot another session is
            # making right now are not referenced yet, and must not go.
            self._git("prune", "--expire=1.hour.ago", check=False)
        return len(doomed)


def _unique() -> str:
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def _status(old: Entry | None, new: Entry | None) -> str:
    if old is None:
        return "A"
    if new is None:
        return "D"
    return "T" if (old[0] == "120000") != (new[0] == "120000") else "M"


def _literal(paths: Iterable[str]) -> list[str]:
    return [f":(literal){p}" for p in paths]


def _remove_stale_indexes(git_dir: Path) -> None:
    """Indexes of instances that died without closing (a crash, kill -9)."""
    cutoff = time.time() - STALE_INDEX_SECONDS
    for path in git_dir.glob("index.*"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < cutoff:
                path.unlink()
