"""A prompt that starts with `/name`: which command it names, and the command's text with
the arguments in place.

Markdown commands (agentls's own, Claude Code's) take `$ARGUMENTS` (everything after the
name) and `$1` … `$9` (its words, quotes grouping); a body with neither gets the
arguments after it, on a line of their own, so nothing the person typed is lost.
VS Code's prompt files take `${input:name}` (or `${input:name:placeholder}`) from
`name=value` words and `${workspaceFolder}`; the arguments follow the body as VS Code
sends them. A placeholder with no argument for it is left empty.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Format = Literal["markdown", "prompt-file"]

# `/name` then the end or white space; a name may hold `:` (a subfolder) but no `/`,
# so a path such as `/usr/bin/env` is no command.
_INVOCATION = re.compile(r"^/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s+|$)(.*)\Z", re.DOTALL)
_POSITIONAL = re.compile(r"\$(ARGUMENTS|[1-9])(?![0-9])")
_INPUT = re.compile(r"\$\{input:([A-Za-z0-9_.-]+)(?::[^}]*)?\}")
_WORKSPACE = re.compile(r"\$\{(workspaceFolder|workspaceFolderBasename)\}")
ESCAPE = "//"  # a prompt that starts with this is sent with one slash, never as a command


@dataclass(frozen=True, slots=True)
class Invocation:
    name: str
    arguments: str


def invocation(prompt: str) -> Invocation | None:
    """The command ``prompt`` names, or None when it names none (a path, `//…`, words)."""
    found = _INVOCATION.match(prompt)
    if found is None:
        return None
    return Invocation(found.group(1), found.group(2).strip())


def unescaped(prompt: str) -> str:
    """A prompt written `//…` to start with a slash without naming a command."""
    return prompt[1:] if prompt.startswith(ESCAPE) else prompt


def expand(body: str, arguments: str, form: Format, root: Path) -> str:
    """``body`` with ``arguments`` in its placeholders (``root``: the workspace folder)."""
    if form == "prompt-file":
        return _prompt_file(body, arguments, root)
    words = _words(arguments)
    used = False

    def value(found: re.Match[str]) -> str:
        nonlocal used
        used = True
        key = found.group(1)
        if key == "ARGUMENTS":
            return arguments
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    text = _POSITIONAL.sub(value, body).strip()
    if not used and arguments:
        text += f"\n\nARGUMENTS: {arguments}"
    return text


def takes_arguments(body: str, form: Format) -> bool:
    """Whether the body has a place for arguments (else they follow it)."""
    pattern = _INPUT if form == "prompt-file" else _POSITIONAL
    return pattern.search(body) is not None


def _prompt_file(body: str, arguments: str, root: Path) -> str:
    named = {}
    for word in _words(arguments):
        key, equals, value = word.partition("=")
        if equals and key:
            named[key] = value
    text = _INPUT.sub(lambda found: named.get(found.group(1), ""), body)
    text = _WORKSPACE.sub(
        lambda found: root.name if found.group(1).endswith("Basename") else str(root), text
    ).strip()
    return f"{text}\n\n{arguments}" if arguments else text


def _words(arguments: str) -> list[str]:
    """The arguments' words, quotes grouping; unbalanced quotes split at white space."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()
