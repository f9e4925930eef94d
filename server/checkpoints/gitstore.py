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
import hashlib
import os
import secrets
import shutil
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agentls.checkpoints.objects import write_commit, write_object, write_ref

REF_PREFIX = "refs/agentls/"
# Never snapshotted: bulky or machine-made folders where no .gitignore says so, other
# version control, and editors' scratch files (the same ones the file watcher skips, so
# a snapshot never holds what the watcher cannot see change).
DEFAULT_EXCLUDES = (
    ".git/", "node_modules/", ".venv/", "venv/", "__pycache__/", ".mypy_cache/",
    ".pytest_cache/", ".ruff_cache/", ".tox/", ".hg/", ".svn/", ".idea/", ".hypothesis/",
    "*.py[cod]", "*.sw?", "*~", ".#*", ".DS_Store", "flycheck_*", "*.___jb_???___",
)  # fmt: skip
_IDENTITY = "agentls <agentls@localhost>"
# Every call: no automatic gc or maintenance (pruning is ours, on our schedule), and an
# index that is cheap to rewrite (split: a small file over a shared base; version 4).
_CONFIG = (
    "-c", "gc.auto=0", "-c", "gc.autoDetach=false", "-c", "maintenance.auto=false",
    "-c", "core.splitIndex=true", "-c", "index.version=4", "-c", "core.autocrlf=false",
    "-c", "core.fsmonitor=false",
)  # fmt: skip
STALE_INDEX_SECONDS = 7 * 86400


class GitError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    status: str  # "A" added, "M" modified, "D" deleted (from the older snapshot's side)


class GitStore:
    """One workspace's snapshots. An instance keeps an index of its own between
    snapshots, so a snapshot told which paths changed looks at those alone."""

    def __init__(self, state_dir: Path, root: Path) -> None:
        self.root = root.resolve()
        digest = hashlib.sha256(str(self.root).encode()).hexdigest()[:16]
        self.git_dir = state_dir / "checkpoints" / f"{digest}.git"
        self._ready = False
        self._index: Path | None = None  # this instance's own, warm between snapshots
        self._trees: dict[str, str] = {}  # commit -> tree, for snapshots made here
        self._overlaid: set[str] = set()  # paths the last snapshot took from buffers

    def _env(self, git_dir: Path | None, index: Path | None) -> dict[str, str]:
        # Nothing inherited may point git elsewhere (GIT_OBJECT_DIRECTORY, GIT_COMMON_DIR,
        # a hook's GIT_INDEX_FILE...): objects go to the private store and nowhere else.
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1")
        if git_dir is not None:
            env.update(GIT_DIR=str(git_dir), GIT_WORK_TREE=str(self.root),
                       GIT_OBJECT_DIRECTORY=str(git_dir / "objects"))  # fmt: skip
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
        env = self._env((git_dir or self.git_dir) if private else None, index)
        process = await asyncio.create_subprocess_exec(
            "git", *_CONFIG, *args, cwd=self.root, env=env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await process.communicate(stdin)
        if check and process.returncode != 0:
            raise GitError(f"git {args[0]} failed: {err.decode(errors='replace').strip()[:300]}")
        return out

    async def ready(self) -> None:
        if self._ready:
            return
        if not (self.git_dir / "HEAD").exists():
            await self._create()
        person = self.root / ".git"
        alternates = self.git_dir / "objects" / "info" / "alternates"
        if (person / "objects").is_dir() and not alternates.exists():
            _write_atomically(alternates, str((person / "objects").resolve()) + "\n")
        exclude = self.git_dir / "info" / "exclude"
        wanted = "\n".join(DEFAULT_EXCLUDES) + "\n"
        if not exclude.exists() or exclude.read_text(encoding="utf-8") != wanted:
            exclude.parent.mkdir(exist_ok=True)
            _write_atomically(exclude, wanted)  # stores made by older versions
        _remove_stale_indexes(self.git_dir)
        self._ready = True

    async def _create(self) -> None:
        """Made aside, then renamed into place: sessions (and processes) of one workspace
        may all start at once, and only one of them gets to make the repository."""
        self.git_dir.parent.mkdir(parents=True, exist_ok=True)
        fresh = self.git_dir.with_name(f"{self.git_dir.name}.{_unique()}.new")
        try:
            await self.git("init", "--quiet", "--bare", str(fresh), private=False)
            await self.git("config", "core.bare", "false", git_dir=fresh)
            await self.git("config", "core.autocrlf", "false", git_dir=fresh)
            await self.git("config", "gc.auto", "0", git_dir=fresh)  # pruning is ours
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
        await self.ready()
        index = self._own_index()
        if changed is None or not self._trees or not index.exists():
            await self._scan_all(index)
        else:
            await self._scan_paths(index, set(changed) | self._overlaid)
        self._overlaid = set(overlays or {})
        if overlays:
            lines = []
            for path, text in overlays.items():
                if text is None:
                    lines.append(f"0 {'0' * 40}\t{path}")  # mode 0: out of the index
                else:
                    blob = write_object(self.git_dir, "blob", text.encode())
                    lines.append(f"100644 {blob}\t{path}")
            await self.git("update-index", "--index-info", index=index,
                           stdin=("\n".join(lines) + "\n").encode())  # fmt: skip
        tree = (await self.git("write-tree", index=index)).strip().decode()
        commit = write_commit(self.git_dir, tree, f"agentls checkpoint {ref}", _IDENTITY)
        write_ref(self.git_dir, REF_PREFIX + ref, commit)
        self._trees[commit] = tree
        return commit

    def _own_index(self) -> Path:
        if self._index is None:
            # Started from the last published index: unchanged files are not hashed again.
            self._index = self.git_dir / f"index.{_unique()}"
            with contextlib.suppress(FileNotFoundError):
                shutil.copyfile(self.git_dir / "index", self._index)
        return self._index

    async def _scan_all(self, index: Path) -> None:
        try:
            await self.git("add", "--all", "--", ".", index=index)
        except GitError:
            if not self._trees and index.exists():  # a published index gone bad: start afresh
                index.unlink()
                await self.git("add", "--all", "--", ".", index=index)
            else:
                raise
        # Published for the next instance (another session, a later process).
        shared = self.git_dir / f"index.{_unique()}.copy"
        try:
            shutil.copyfile(index, shared)
            shared.replace(self.git_dir / "index")
        finally:
            shared.unlink(missing_ok=True)

    async def _scan_paths(self, index: Path, paths: set[str]) -> None:
        if not paths:
            return
        # What those paths now hold: tracked entries under them, and files under them
        # that are new and not ignored; update-index drops what is gone from disk.
        listed = await self.git(
            "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
            *(f":(literal){p}" for p in sorted(paths)), index=index,
        )  # fmt: skip
        names = {n for n in listed.split(b"\0") if n and not n.endswith(b"/")}
        if names:
            await self.git("update-index", "--add", "--remove", "--replace", "-z", "--stdin",
                           index=index, stdin=b"\0".join(sorted(names)) + b"\0")  # fmt: skip

    def close(self) -> None:
        """Drop this instance's index (the published one stays for the next)."""
        if self._index is not None:
            self._index.unlink(missing_ok=True)
            self._index = None
        self._trees.clear()

    async def changes(self, before: str, after: str) -> list[Change]:
        if before == after or self._trees.get(before, "-") == self._trees.get(after):
            return []
        out = await self.git(
            "diff-tree", "-r", "--no-renames", "--name-status", "-z", before, after
        )
        fields = [f for f in out.decode("utf-8", "surrogateescape").split("\0") if f]
        return [Change(fields[i + 1], fields[i][0]) for i in range(0, len(fields) - 1, 2)]

    async def read(self, commit: str, path: str) -> bytes | None:
        """The file's bytes in a snapshot, or None when it was not there."""
        out = await self.git("cat-file", "blob", f"{commit}:{path}", check=False)
        if not out and not await self._exists(commit, path):
            return None
        return out

    async def _exists(self, commit: str, path: str) -> bool:
        out = await self.git("ls-tree", "--name-only", commit, "--", path, check=False)
        return bool(out.strip())

    async def prune(self, keep: int, max_age_days: float) -> int:
        """Drop checkpoints beyond the newest ``keep`` or older than the age; returns how many."""
        await self.ready()
        out = await self.git(
            "for-each-ref", "--sort=-committerdate", "--format=%(refname) %(committerdate:unix)",
            REF_PREFIX,
        )  # fmt: skip
        refs = [line.split() for line in out.decode().splitlines() if line.strip()]
        cutoff = time.time() - max_age_days * 86400
        doomed = [name for index, (name, stamp) in enumerate(refs)
                  if index >= keep or int(stamp) < cutoff]  # fmt: skip
        for name in doomed:
            await self.git("update-ref", "-d", name)
        if doomed:
            # Not --expire=now: the loose objects of a snapshot another session is
            # making right now are not referenced yet, and must not go.
            await self.git("prune", "--expire=1.hour.ago", check=False)
        return len(doomed)


def _unique() -> str:
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def _remove_stale_indexes(git_dir: Path) -> None:
    """Indexes of instances that died without closing (a crash, kill -9)."""
    cutoff = time.time() - STALE_INDEX_SECONDS
    for path in git_dir.glob("index.*"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < cutoff:
                path.unlink()


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f"{path.name}.{_unique()}")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
