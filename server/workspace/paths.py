"""Path confinement to the workspace root, and detection of files that usually hold secrets."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace import globs

# Matched case-insensitively. A pattern without "/" is matched against the file
# name at any depth; one with "/" against the path's trailing components. A
# leading "!" exempts (last match wins), so templates meant to be committed
# (.env.example) and public keys stay readable without a prompt.
DEFAULT_SECRET_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "!.env.example",
    "!.env.sample",
    "!.env.template",
    "!.env.dist",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_ed25519*",
    "id_ecdsa*",
    "id_dsa*",
    "!id_*.pub",
    ".aws/credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials.json",
    "secrets.*",
)


def is_secret_path(rel: str, patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS) -> bool:
    """True when a workspace-relative path names a file that usually holds secrets."""
    path = globs.normalise(rel.replace("\\", "/").lower())
    if not path or path == "." or not _positives(patterns)(path):
        return False  # the common case: one regex, no per-pattern loop
    secret = False
    for raw in patterns:
        negated = raw.startswith("!")
        if globs.match_path(_anywhere((raw[1:] if negated else raw).lower()), path):
            secret = not negated
    return secret


@cache
def _positives(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    return globs.any_path_matcher(
        tuple(_anywhere(p.lower()) for p in patterns if not p.startswith("!"))
    )


@cache
def _anywhere(pattern: str) -> str:
    """The pattern matched against a path's trailing components."""
    return "**/" + globs.normalise(pattern).strip("/")


def confine(root: Path, path: str) -> str:
    """Turn a path the model gave into a workspace-relative posix path ("." for the root).

    ``root`` must already be resolved. Raises ToolError(permission_denied)
    when the path resolves outside the root, through ``..``, an absolute
    path or a symlink.
    """
    if "\x00" in path:
        raise ToolError(ErrorCode.INVALID_INPUT, "the path contains a NUL character")
    given = Path(os.path.expanduser(path.strip() or "."))
    candidate = given if given.is_absolute() else root / given
    real = candidate.resolve()
    if not real.is_relative_to(root):
        raise ToolError(
            ErrorCode.PERMISSION_DENIED,
            f"{path!r} is outside the workspace ({root}); only paths inside it are allowed",
        )
    # Prefer the path as the model spelled it (a symlink inside the workspace
    # keeps its name), unless ".." after a symlink made the spelling misleading.
    lexical = Path(os.path.normpath(candidate))
    if lexical.is_relative_to(root) and lexical.resolve() == real:
        return _posix(lexical.relative_to(root))
    return _posix(real.relative_to(root))


def _posix(rel: Path) -> str:
    text = rel.as_posix()
    return text if text else "."
