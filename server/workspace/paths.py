"""Path confinement to the workspace root, and detection of files that usually hold secrets."""

from __future__ import annotations

import os
import stat
import time
from functools import cache, lru_cache
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
    return secret_paths(patterns)(rel)


class SecretPaths:
    """Which paths name secret files under one tuple of patterns: compiled once, and each
    path's verdict remembered. A verdict depends only on the path and the patterns, which
    never change for this object: other patterns are another object (`secret_paths`)."""

    __slots__ = ("_ordered", "_positives", "_seen", "patterns")
    MEMO = 4096  # verdicts kept; a full memo starts again empty

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        self._positives = globs.any_path_matcher(
            tuple(_anywhere(p.lower()) for p in patterns if not p.startswith("!"))
        )
        self._ordered = tuple(
            (raw.startswith("!"), _anywhere(raw.removeprefix("!").lower())) for raw in patterns
        )
        self._seen: dict[str, bool] = {}

    def __call__(self, rel: str) -> bool:
        verdict = self._seen.get(rel)
        if verdict is None:
            verdict = self.judge(rel)
            if len(self._seen) >= self.MEMO:
                self._seen.clear()
            self._seen[rel] = verdict
        return verdict

    def judge(self, rel: str) -> bool:
        """The verdict, not remembered (for walks over a whole tree)."""
        path = globs.normalise(rel.replace("\\", "/").lower())
        if not path or path == "." or not self._positives(path):
            return False  # the common case: one regex, no per-pattern loop
        secret = False
        for negated, pattern in self._ordered:
            if globs.match_path(pattern, path):
                secret = not negated
        return secret


@lru_cache(maxsize=16)
def secret_paths(patterns: tuple[str, ...]) -> SecretPaths:
    """The one `SecretPaths` for these patterns (settings loads keep their tuple)."""
    return SecretPaths(patterns)


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
    return confine_real(root, path)[0]


def confine_real(root: Path, path: str) -> tuple[str, Path]:
    """As `confine`, with the real path behind it (symlinks resolved): ``root / rel``
    resolves to it, so a caller need not resolve it again."""
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
    # Spelled without "." or "..", it resolves to ``real`` already: no second walk.
    lexical = Path(os.path.normpath(candidate))
    if lexical.is_relative_to(root) and (lexical == candidate or lexical.resolve() == real):
        return _posix(lexical.relative_to(root)), real
    return _posix(real.relative_to(root)), real


def _posix(rel: Path) -> str:
    text = rel.as_posix()
    return text if text else "."


# How many entries the hard-link scan looks at before it gives up and treats every
# multiply linked file as a secret (fail closed).
_SCAN_LIMIT = 200_000
_SCAN_FRESH_SECONDS = 2.0
_SCAN_SKIP = frozenset({".git", "node_modules", ".venv", "__pycache__"})


class SecretFiles:
    """Which files of one workspace hold secrets: by name, behind a symlink, or as a hard
    link to a secret-named file (same device and inode)."""

    def __init__(self, root: Path, patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS) -> None:
        self.root = root
        self.patterns = patterns
        self.by_name = secret_paths(patterns)
        # One scan serves a whole search walk (many linked files), then goes stale.
        self._scanned: tuple[float, dict[tuple[int, int], str], bool] | None = None

    def is_secret(self, rel: str) -> bool:
        return self.by_name(rel) or self.secret_behind(rel) is not None

    def secret_behind(self, rel: str, real: Path | None = None) -> str | None:
        """The secret file a path not secret by name leads to (symlink or hard link), if any;
        ``real``: what ``root / rel`` resolves to, when the caller has just resolved it."""
        full = self.root / rel
        try:
            if real is None:
                real = full.resolve()
            st = real.stat()
        except (OSError, RuntimeError):
            return None
        if real != full and real.is_relative_to(self.root):
            target = _posix(real.relative_to(self.root))
            if self.by_name(target):
                return target
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            inodes, complete = self._secret_inodes()
            found = inodes.get((st.st_dev, st.st_ino))
            if found is not None:
                return found
            if not complete:
                return rel  # could not look everywhere: treat it as a secret
        return None

    def _secret_inodes(self) -> tuple[dict[tuple[int, int], str], bool]:
        now = time.monotonic()
        if self._scanned is None or now - self._scanned[0] > _SCAN_FRESH_SECONDS:
            self._scanned = (now, *self._scan())
        return self._scanned[1], self._scanned[2]

    def _scan(self) -> tuple[dict[tuple[int, int], str], bool]:
        """(device, inode) -> path of every secret-named file; False when the scan stopped."""
        found: dict[tuple[int, int], str] = {}
        seen = 0
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in _SCAN_SKIP]
            seen += len(dirs) + len(files)
            if seen > _SCAN_LIMIT:
                return found, False
            base = Path(folder).relative_to(self.root)
            for name in files:
                rel = _posix(base / name)
                if not self.by_name.judge(rel):  # a whole tree: not remembered
                    continue
                try:
                    st = os.stat(self.root / rel, follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    found.setdefault((st.st_dev, st.st_ino), rel)
        return found, True
