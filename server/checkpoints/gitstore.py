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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REF_PREFIX = "refs/agentls/"
# Folders not worth snapshotting where no .gitignore says so (non-git workspaces).
DEFAULT_EXCLUDES = (
    ".git/", "node_modules/", ".venv/", "venv/", "__pycache__/",
    ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".tox/",
)  # fmt: skip
_IDENTITY = {
    "GIT_AUTHOR_NAME": "agentls", "GIT_AUTHOR_EMAIL": "agentls@localhost",
    "GIT_COMMITTER_NAME": "agentls", "GIT_COMMITTER_EMAIL": "agentls@localhost",
}  # fmt: skip


class GitError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    status: str  # "A" added, "M" modified, "D" deleted (from the older snapshot's side)


class GitStore:
    def __init__(self, state_dir: Path, root: Path) -> None:
        self.root = root.resolve()
        digest = hashlib.sha256(str(self.root).encode()).hexdigest()[:16]
        self.git_dir = state_dir / "checkpoints" / f"{digest}.git"
        self._ready = False

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
        env = {**os.environ, **_IDENTITY, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            env.pop(name, None)
        if private:
            env["GIT_DIR"] = str(git_dir or self.git_dir)
            env["GIT_WORK_TREE"] = str(self.root)
        if index is not None:
            env["GIT_INDEX_FILE"] = str(index)
        process = await asyncio.create_subprocess_exec(
            "git", *args, cwd=self.root, env=env,
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
            info = fresh / "info"
            info.mkdir(exist_ok=True)
            (info / "exclude").write_text("\n".join(DEFAULT_EXCLUDES) + "\n", encoding="utf-8")
            try:
                fresh.rename(self.git_dir)
            except OSError:
                if not (self.git_dir / "HEAD").exists():
                    raise  # not a lost race: a real failure
        finally:
            shutil.rmtree(fresh, ignore_errors=True)

    async def snapshot(self, ref: str, overlays: Mapping[str, str | None] | None = None) -> str:
        """Record the work tree (plus unsaved buffers in ``overlays``) as a commit under ``ref``."""
        await self.ready()
        # An index of its own, started from the last one (so unchanged files are not
        # hashed again): snapshots of sessions running at once never share a lock.
        shared = self.git_dir / "index"
        index = self.git_dir / f"index.{_unique()}"
        try:
            with contextlib.suppress(FileNotFoundError):
                shutil.copyfile(shared, index)
            await self.git("add", "--all", "--", ".", index=index)
            for path, text in (overlays or {}).items():
                if text is None:
                    await self.git(
                        "rm", "--cached", "--quiet", "--ignore-unmatch", "--", path, index=index
                    )
                    continue
                blob = (await self.git("hash-object", "-w", "--stdin", stdin=text.encode())).strip()
                cacheinfo = f"100644,{blob.decode()},{path}"
                await self.git("update-index", "--add", "--cacheinfo", cacheinfo, index=index)
            tree = (await self.git("write-tree", index=index)).strip().decode()
            index.replace(shared)  # the next snapshot starts from this one
        finally:
            index.unlink(missing_ok=True)
        commit = (
            (await self.git("commit-tree", tree, "-m", f"agentls checkpoint {ref}"))
            .strip()
            .decode()
        )
        await self.git("update-ref", REF_PREFIX + ref, commit)
        return commit

    async def changes(self, before: str, after: str) -> list[Change]:
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


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f"{path.name}.{_unique()}")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
