"""Finding the command files of a workspace and of the person, and reading each once.

Where they are, first found first (a name found again later is hidden by the first):

1. `.agentls/commands/**/*.md` in the workspace,
2. `.claude/commands/**/*.md` in the workspace (Claude Code's),
3. `.github/prompts/*.prompt.md` in the workspace (VS Code's prompt files),
4. `$XDG_CONFIG_HOME/agentls/commands/**/*.md`, the person's own.

The workspace's commands win over the person's, as the workspace settings file does
over the person's: a project's `/review` is the one its team wrote. A subfolder is a
namespace (`git/commit.md` is `/git:commit`). A file that is not UTF-8, is larger than
`MAX_BYTES`, has broken frontmatter, is empty, takes a built-in command's name, or (in
the workspace) is a link out of it, is skipped with a note saying why.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from agentls.prompt_commands.allowed_tools import allow_rules
from agentls.prompt_commands.catalog import (
    RESERVED,
    CommandCatalog,
    PromptCommand,
    Scope,
)
from agentls.prompt_commands.expansion import Format
from agentls.prompt_commands.frontmatter import (
    BrokenFrontmatter,
    Value,
    as_list,
    as_text,
    split_frontmatter,
)

MAX_BYTES = 64 * 1024  # a command file larger than this is skipped
MAX_FILES = 200  # per folder: what a folder holds beyond it is left out, with a note
MAX_DEPTH = 3  # namespaces deep
_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_DESCRIPTION_CHARS = 100

# Is this workspace file, with these bytes (sha256), approved with `agentls trust`?
Approved = Callable[[Path, str], bool]


@dataclass(frozen=True, slots=True)
class Source:
    folder: Path
    scope: Scope
    form: Format
    suffix: str
    nested: bool  # subfolders are namespaces


WORKSPACE_FOLDERS = (".agentls/commands", ".claude/commands", ".github/prompts")


def sources(root: Path | None, user_dir: Path) -> list[Source]:
    """Where commands are looked for, first found first."""
    found: list[Source] = []
    if root is not None:
        found += [
            Source(root / ".agentls" / "commands", "workspace", "markdown", ".md", True),
            Source(root / ".claude" / "commands", "workspace", "markdown", ".md", True),
            Source(root / ".github" / "prompts", "workspace", "prompt-file", ".prompt.md", False),
        ]
    found.append(Source(user_dir / "commands", "user", "markdown", ".md", True))
    return found


def find_commands(
    root: Path | None, user_dir: Path, *, approved: Approved, known_tools: Collection[str]
) -> CommandCatalog:
    """The commands of ``root`` (None: the person's alone) and of ``user_dir`` (agentls's
    folder of the person's own settings), each name once, with what was skipped.
    Blocking: a face's event loop calls it on a thread."""
    reading = _Reading(root.resolve() if root is not None else None, approved, known_tools)
    for source in sources(root, user_dir):
        reading.source(source)
    commands = [
        dataclasses.replace(command, shadows=tuple(reading.hidden.get(name, ())))
        for name, command in sorted(reading.found.items())
    ]
    return CommandCatalog(tuple(commands), tuple(reading.problems))


class _Reading:
    def __init__(self, root: Path | None, approved: Approved, known_tools: Collection[str]):
        self.root = root
        self.approved = approved
        self.known_tools = known_tools
        self.found: dict[str, PromptCommand] = {}
        self.hidden: dict[str, list[str]] = {}
        self.problems: list[str] = []

    def source(self, source: Source) -> None:
        if not source.folder.is_dir():
            return
        folder = self._shown(source.folder)
        if source.scope == "workspace" and not self._inside(source.folder):
            self.problems.append(f"{folder}: a link out of the workspace, not read")
            return
        for count, path in enumerate(_files(source)):
            if count == MAX_FILES:
                self.problems.append(f"{folder}: more than {MAX_FILES} files; the rest not read")
                return
            self._file(source, path)

    def _file(self, source: Source, path: Path) -> None:
        shown = self._shown(path)
        try:
            command = self._read(source, path, shown)
        except _Skipped as skipped:
            self.problems.append(f"{shown}: {skipped}")
            return
        known = self.found.get(command.name)
        if known is None:
            self.found[command.name] = command
        else:
            self.hidden.setdefault(command.name, []).append(shown)

    def _read(self, source: Source, path: Path, shown: str) -> PromptCommand:
        name = _name(source, path)
        if source.scope == "workspace" and not self._inside(path):
            raise _Skipped("a link out of the workspace, not read")
        raw = _bytes(path)
        text = _text(raw)
        try:
            keys, body = split_frontmatter(text)
            allowed = as_list(keys.get("allowed_tools")) if source.form == "markdown" else []
        except BrokenFrontmatter as exc:
            raise _Skipped(f"broken frontmatter ({exc}); not offered") from None
        if source.form == "prompt-file" and as_text(keys.get("name")):
            name = as_text(keys.get("name"))
            if not _SEGMENT.match(name):
                raise _Skipped(f"name {name!r} is not a command name")
        if name in RESERVED:
            raise _Skipped(f"/{name} is a built-in command; this file is not offered")
        if not body.strip():
            raise _Skipped("no text after its frontmatter; not offered")
        digest = hashlib.sha256(raw).hexdigest()
        trusted = source.scope == "user" or self.approved(path, digest)
        translated = allow_rules(allowed, self.known_tools)
        notes = list(translated.notes)
        if translated.rules and not trusted:
            notes.append("its allowed-tools add no rule until you approve the file: agentls trust")
        model = as_text(keys.get("model"))
        if model:
            notes.append(f"model {model!r} not used: the session keeps its own model")
        return PromptCommand(
            name=name,
            description=_description(keys.get("description"), body),
            argument_hint=_hint(keys),
            path=path,
            shown_as=shown,
            scope=source.scope,
            form=source.form,
            body=body,
            sha256=digest,
            trusted=trusted,
            allowed_tools=tuple(allowed),
            requested_rules=translated.rules,
            rules=translated.rules if trusted else (),
            notes=tuple(f"/{name}: {note}" for note in notes),
        )

    def _inside(self, path: Path) -> bool:
        return self.root is not None and path.resolve().is_relative_to(self.root)

    def _shown(self, path: Path) -> str:
        if self.root is not None:
            try:
                return path.relative_to(self.root).as_posix()
            except ValueError:
                pass
        return str(path)


class _Skipped(Exception):
    """A file not offered as a command (the message says why)."""


def _files(source: Source) -> Iterator[Path]:
    """The source's command files in a stable order, subfolders after the files above them."""
    pattern = f"**/*{source.suffix}" if source.nested else f"*{source.suffix}"
    for path in sorted(source.folder.glob(pattern)):
        relative = path.relative_to(source.folder)
        if len(relative.parts) > MAX_DEPTH + 1 or any(p.startswith(".") for p in relative.parts):
            continue
        if path.is_file():
            yield path


def _name(source: Source, path: Path) -> str:
    relative = path.relative_to(source.folder)
    stem = relative.name[: -len(source.suffix)]
    segments = [*relative.parts[:-1], stem]
    bad = next((s for s in segments if not _SEGMENT.match(s)), None)
    if bad is not None:
        raise _Skipped(f"{bad!r} cannot be part of a command name (letters, digits, . _ -)")
    return ":".join(segments)


def _bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise _Skipped(f"{size} bytes, more than the {MAX_BYTES} a command file may have")
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise _Skipped(f"unreadable ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:  # it grew while being read
        raise _Skipped(f"more than the {MAX_BYTES} bytes a command file may have")
    return raw


def _text(raw: bytes) -> str:
    if b"\0" in raw:
        raise _Skipped("a binary file, not a command")
    try:
        return raw.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError:
        raise _Skipped("not UTF-8 text; not offered") from None


def _description(value: Value | None, body: str) -> str:
    """The file's description, else its first line of text."""
    text = as_text(value).strip()
    if not text:
        first = next((line for line in body.splitlines() if line.strip()), "")
        text = first.strip().lstrip("#").strip()
    text = " ".join(text.split())
    if len(text) > _DESCRIPTION_CHARS:
        text = text[: _DESCRIPTION_CHARS - 1].rstrip() + "…"
    return text


def _hint(keys: dict[str, Value]) -> str | None:
    hint = as_text(keys.get("argument_hint")).strip()
    return hint or None
