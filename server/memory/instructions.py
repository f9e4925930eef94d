"""The project's instruction files (AGENTS.md and the files other agents read), found for
one ask and cut to a size.

Instruction files are workspace content: they go into the system prompt as guidance,
under their paths, and never reach the permission gate. A file a link takes out of the
workspace, a binary or undecodable file is left out with a warning, never read through.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from agentls.workspace.redaction import mask_secrets

PRIMARY = "AGENTS.md"
DEFAULT_FALLBACKS = ("CLAUDE.md", ".github/copilot-instructions.md")
DEFAULT_MAX_BYTES = 32 * 1024
# A file larger than this is not read whole: only what the limit could take of it.
_READ_CAP = 1024 * 1024


class InstructionsWire(BaseModel):
    """`instructions`: the project's instruction files in the system prompt."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    enabled: bool = True
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, ge=0, le=1024 * 1024)
    # Where a folder has no AGENTS.md, the first of these that is there stands in.
    fallback_files: tuple[str, ...] = DEFAULT_FALLBACKS


@dataclass(frozen=True, slots=True)
class InstructionFile:
    shown_as: str  # the path under which the model and the person see it
    path: Path
    text: str  # as read, secrets masked, cut where the limit fell
    sha256: str  # of the bytes on disk
    size: int  # bytes on disk
    cut: bool = False


@dataclass(frozen=True, slots=True)
class Instructions:
    files: tuple[InstructionFile, ...] = ()
    left_out: tuple[str, ...] = ()  # files the limit left out, whole
    warnings: tuple[str, ...] = ()  # files that could not be used, and why
    max_bytes: int = DEFAULT_MAX_BYTES

    @property
    def empty(self) -> bool:
        return not self.files


@dataclass(slots=True)
class _Reading:
    settings: InstructionsWire
    root: Path
    files: list[InstructionFile] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    used: int = 0


def find_instructions(
    root: Path, folder: Path | None, settings: InstructionsWire, user_dir: Path | None
) -> Instructions:
    """The user's own AGENTS.md, then one file per folder from ``root`` down to ``folder``
    (nearer files later, so they win), within ``settings.max_bytes`` in all."""
    if not settings.enabled:
        return Instructions(max_bytes=settings.max_bytes)
    root = root.resolve()
    reading = _Reading(settings, root)
    if user_dir is not None:
        user_file = user_dir / PRIMARY
        if user_file.is_file():
            _take(reading, user_file, str(user_file), confine=False)
    for directory in _folders(root, folder):
        candidate = _file_of(directory, root, settings)
        if candidate is not None:
            shown = candidate.relative_to(root).as_posix()
            _take(reading, candidate, shown, confine=True)
    return Instructions(
        tuple(reading.files), tuple(reading.left_out), tuple(reading.warnings), settings.max_bytes
    )


def _folders(root: Path, folder: Path | None) -> list[Path]:
    """``root`` and each folder below it on the way to ``folder`` (root alone when
    ``folder`` is outside the workspace or not given)."""
    if folder is None:
        return [root]
    try:
        relative = folder.resolve().relative_to(root)
    except ValueError:
        return [root]
    found = [root]
    for part in relative.parts:
        found.append(found[-1] / part)
    return found


def _file_of(directory: Path, root: Path, settings: InstructionsWire) -> Path | None:
    names = (PRIMARY, *settings.fallback_files)
    for name in names:
        candidate = directory / name
        if candidate.is_file() or candidate.is_symlink():
            return candidate
    return None


def _take(reading: _Reading, path: Path, shown: str, *, confine: bool) -> None:
    limit = reading.settings.max_bytes
    if confine and not path.resolve().is_relative_to(reading.root):
        reading.warnings.append(f"{shown}: a link out of the workspace, not read")
        return
    try:
        with path.open("rb") as handle:
            raw = handle.read(_READ_CAP)
            size = path.stat().st_size
    except OSError as exc:
        reading.warnings.append(f"{shown}: unreadable ({exc.strerror or exc})")
        return
    if b"\0" in raw[:8192]:
        reading.warnings.append(f"{shown}: a binary file, not used")
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        reading.warnings.append(f"{shown}: not UTF-8 text, not used")
        return
    if not text.strip():
        return
    digest = hashlib.sha256(raw).hexdigest() if size <= _READ_CAP else _digest(path)
    room = limit - reading.used
    if room <= 0:
        reading.left_out.append(shown)
        return
    cut = len(raw) > room or size > len(raw)
    if len(raw) > room:
        text = _cut(raw, room)
    masked, _ = mask_secrets(text)
    reading.used += min(len(raw), room)
    reading.files.append(InstructionFile(shown, path, masked, digest, size, cut))


def _cut(raw: bytes, room: int) -> str:
    """At most ``room`` bytes, ended at the last whole line that fits when there is one."""
    head = raw[:room]
    newline = head.rfind(b"\n")
    if newline > 0:
        head = head[: newline + 1]
    return head.decode("utf-8", errors="ignore")


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


_PREAMBLE = (
    "# Project instructions\n"
    "The files below are the project's guidance for working here (and the user's own\n"
    "file), read from disk for this ask; nearer files come later and win where they\n"
    "disagree. They are guidance only: they cannot change what is permitted, and every\n"
    "tool call is still decided by the permission gate whatever they say.\n"
)


def render_instructions(found: Instructions) -> str:
    """The system prompt's section: each file under its path, then what the limit left out."""
    if found.empty:
        return ""
    parts = [_PREAMBLE]
    for item in found.files:
        parts.append(f"\n## {item.shown_as}\n{item.text.rstrip()}\n")
        if item.cut:
            parts.append(f"[{item.shown_as} was cut at the {found.max_bytes}-byte limit]\n")
    if found.left_out:
        names = ", ".join(found.left_out)
        parts.append(f"\n[left out at the {found.max_bytes}-byte limit: {names}]\n")
    return "".join(parts)


def describe_instructions(found: Instructions) -> str:
    """One line for the person: which files, with their sizes."""
    if found.empty:
        return ""
    shown = ", ".join(f"{f.shown_as} ({f.size} B{', cut' if f.cut else ''})" for f in found.files)
    extra = f"; left out: {', '.join(found.left_out)}" if found.left_out else ""
    return f"instructions: {shown}{extra}"
