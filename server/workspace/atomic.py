"""Replacing a file whole: readers see the old content or the new, never a part."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def replace_atomically(
    target: Path, data: bytes | str, *, mode: int | None = None, keep_mode: bool = False
) -> None:
    """Write ``data`` (text as UTF-8) to a new file beside ``target`` and rename it over
    ``target``, so two writers at once leave one whole version and a reader never finds it
    empty or cut. ``mode``: the new file's permissions (default 0o600, private);
    ``keep_mode``: those ``target`` has, when it is there. A link at ``target`` is
    replaced, never written through."""
    import tempfile  # here, not at start-up: it brings shutil, random and the compressors

    if keep_mode:
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(target.stat().st_mode)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with open(fd, "wb") as handle:
            handle.write(raw)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
