"""What an ask from the editor reads instruction files down to, and how its first
progress says which it used."""

from __future__ import annotations

from pathlib import Path

from pygls.uris import to_fs_path


def folder_of(uri: str | None) -> Path | None:
    """The folder of the document an ask is about: instruction files are read down to it."""
    path = to_fs_path(uri) if uri else None
    return Path(path).parent if path else None


def with_guidance(title: str, lines: list[str]) -> str:
    """The run's first progress message: what it asked, then the instruction files used."""
    return " · ".join([title, *lines]) if lines else title
