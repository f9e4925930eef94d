"""Writing git objects and refs straight into the private store.

A commit or a buffer's blob is a few hundred bytes: writing it here costs far
less than starting a git process for it. Only the private store is ever
written; objects are immutable, so a lost race leaves the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
import zlib
from pathlib import Path

from agentls.workspace.atomic import replace_atomically


def write_object(git_dir: Path, kind: str, data: bytes) -> str:
    """Store a loose object (``kind`` blob or commit) and return its id."""
    raw = f"{kind} {len(data)}\0".encode() + data
    oid = hashlib.sha1(raw, usedforsecurity=False).hexdigest()
    path = git_dir / "objects" / oid[:2] / oid[2:]
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        replace_atomically(path, zlib.compress(raw, 1), mode=0o444)
    return oid


def write_commit(git_dir: Path, tree: str, message: str, identity: str) -> str:
    stamp = f"{identity} {int(time.time())} +0000"
    body = f"tree {tree}\nauthor {stamp}\ncommitter {stamp}\n\n{message}\n"
    return write_object(git_dir, "commit", body.encode())


def write_ref(git_dir: Path, ref: str, oid: str) -> None:
    """A loose ref (``ref`` is the full name under refs/); readers see old or new, never half."""
    path = git_dir / ref
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, f"{oid}\n".encode(), mode=0o644)


# A path as a snapshot holds it: (mode, blob id); None when it is not there.
Entry = tuple[str, str]
BIG_FILE = 32 * 2**20  # larger files are left to git, which streams them


class NotAFile(Exception):
    """A folder, a socket, a file too big to read here: git looks at it instead."""


def disk_entry(root: Path, rel: str, git_dir: Path | None) -> Entry | None:
    """What ``rel`` holds on disk now, as git would record it without filters; with
    ``git_dir``, its blob is stored there too."""
    path = root / rel
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        mode, data = "120000", os.fsencode(os.readlink(path))
    elif stat.S_ISREG(info.st_mode) and info.st_size <= BIG_FILE:
        mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"
        data = path.read_bytes()
    else:
        raise NotAFile(rel)
    if git_dir is None:
        raw = f"blob {len(data)}\0".encode() + data
        return mode, hashlib.sha1(raw, usedforsecurity=False).hexdigest()
    return mode, write_object(git_dir, "blob", data)
