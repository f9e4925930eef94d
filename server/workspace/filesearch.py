"""Listing and searching files under a workspace root, the way ripgrep does by default.

Two engines give the same results: ripgrep when ``rg`` is on PATH, else a
pure-Python walk. Set ``AGENTLS_NO_RIPGREP=1`` or pass ``use_ripgrep=False``
to force the Python engine (an explicit ``use_ripgrep`` wins over the variable).

Rules both follow (ripgrep's defaults):
- hidden files and folders (name starts with ".") below the folder asked for
  are skipped, and so is ``.git``; symlinks are not followed;
- ``.gitignore``, ``.ignore``, ``.rgignore`` and ``.git/info/exclude`` are
  honoured, in nested folders and in the folders above the root (git rules
  only up to the repository's top); the global git excludes file is not;
- search skips binary files (a NUL byte) unless the file was asked for by name;
- results are sorted by path, folder by folder (``rg --sort path``).

Globs: ``*`` and ``?`` stay within a folder, ``**`` crosses folders,
``{a,b}`` alternates; a glob without "/" matches the file name at any depth,
one with "/" the path relative to the folder searched.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace import globs, python_walk
from agentls.workspace.atomic import replace_atomically
from agentls.workspace.control import helper_path
from agentls.workspace.interface import Listing, SearchMatch, SearchResult

_RG_COMMON = ("--no-config", "--no-require-git", "--no-ignore-global", "--sort", "path")
# ripgrep is started, read and its records filtered on these threads: starting a process
# from a large server, the per-path secret checks (stat calls) and parsing thousands of
# records would otherwise hold up the event loop that answers the editor.
_RG_WORKERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="agentls-rg")
_T = TypeVar("_T")


async def list_files(
    root: Path, base: str, pattern: str | None, limit: int, *, use_ripgrep: bool | None = None
) -> Listing:
    """Files under ``base`` (workspace-relative) whose path below ``base`` matches ``pattern``."""
    wanted = _path_filter(base, pattern)
    rg = ripgrep_path(use_ripgrep, root)
    if rg is not None:
        found = await _rg_list(rg, root, base, wanted, limit)
        if found is not None:
            return found
    return await asyncio.to_thread(python_walk.list_files, root, base, wanted, limit)


async def search(
    root: Path,
    pattern: str,
    base: str,
    glob: str | None,
    limit: int,
    *,
    use_ripgrep: bool | None = None,
    secret: Callable[[str], bool] | None = None,
    secret_globs: Sequence[str] = (),
) -> SearchResult:
    """Lines matching the regex ``pattern`` (Python syntax) in files under ``base``.

    Files ``secret`` names are not searched, unless ``base`` is that file (asked for by
    name, so the gate has seen it); ripgrep is told to skip files ``secret_globs``
    (secret-file patterns) name, so it does not even open them. A line holding a
    secret is matched and shown in
    its masked form only, so a search can never tell what a masked value holds.
    """
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(ErrorCode.INVALID_INPUT, f"invalid regex {pattern!r}: {exc}") from exc
    wanted = _path_filter(base, glob)
    skip_rules: list[str] = []
    if secret is not None and not (root / base).is_file():
        by_glob, is_secret = wanted, secret
        wanted = lambda rel: by_glob(rel) and not is_secret(rel)  # noqa: E731
        skip_rules = ignore_rules_for(secret_globs)
    keep = _masked_match(regex)
    rg = ripgrep_path(use_ripgrep, root)
    if rg is not None:
        found = await _rg_search(rg, root, pattern, base, wanted, keep, limit, skip_rules)
        if found is not None:
            return found
    return await asyncio.to_thread(python_walk.search, root, regex, base, wanted, keep, limit)


def _masked_match(regex: re.Pattern[str]) -> Callable[[str], str | None]:
    """The line as it may be shown when it matches in its masked form, else None."""
    from agentls.workspace.redaction import mask_secrets  # its patterns compile on first use

    def keep(line: str) -> str | None:
        masked, count = mask_secrets(line)
        if count and regex.search(masked) is None:
            return None
        return masked

    return keep


def ripgrep_path(use_ripgrep: bool | None = None, root: Path | None = None) -> str | None:
    """ripgrep's executable, unless told not to (the argument wins over the environment)."""
    if use_ripgrep is None:
        use_ripgrep = os.environ.get("AGENTLS_NO_RIPGREP", "") in ("", "0")
    if not use_ripgrep:
        return None
    path = os.environ.get("PATH", os.defpath)
    return _which_rg(path if root is None else helper_path(root, path))


@lru_cache(maxsize=8)
def _which_rg(path: str) -> str | None:
    import shutil

    found: str | None = shutil.which("rg", path=path)
    return found


# --- globs and ignore rules -------------------------------------------------


def path_glob_matcher(glob: str) -> Callable[[str], bool]:
    """A predicate on paths relative to the folder searched (see the module docstring)."""
    glob = glob.strip()
    if glob.endswith("/"):
        glob += "**"
    if glob.startswith("/"):
        glob = glob.lstrip("/")
    elif "/" not in glob:
        glob = "**/" + glob  # a name glob matches at any depth
    return lambda below: globs.match_path(glob, below)


def _path_filter(base: str, glob: str | None) -> Callable[[str], bool]:
    """A predicate on workspace-relative file paths: does the part below ``base`` match?"""
    if not glob:
        return lambda _rel: True
    matches = path_glob_matcher(glob)

    def wanted(rel: str) -> bool:
        if base == ".":
            below = rel
        elif rel.startswith(base + "/"):
            below = rel[len(base) + 1 :]
        else:  # base is the file itself
            below = rel.rsplit("/", 1)[-1]
        return matches(below)

    return wanted


# --- the ripgrep engine -----------------------------------------------------


async def _rg_list(
    rg: str, root: Path, base: str, wanted: Callable[[str], bool], limit: int
) -> Listing | None:
    run = _RgRun([rg, "--files", "--null", *_RG_COMMON, *_base_arg(base)], root)
    return await _off_loop(run, lambda: _rg_list_records(run, wanted, limit))


def _rg_list_records(run: _RgRun, wanted: Callable[[str], bool], limit: int) -> Listing | None:
    paths: list[str] = []
    with run:
        for record in run.records(b"\0"):
            rel = os.fsdecode(record)
            if wanted(rel):
                paths.append(rel)
                if len(paths) > limit:
                    return Listing(paths[:limit], truncated=True)
    return Listing(paths, truncated=False) if run.exit_code() in (0, 1) or paths else None


async def _rg_search(
    rg: str,
    root: Path,
    pattern: str,
    base: str,
    wanted: Callable[[str], bool],
    keep: Callable[[str], str | None],
    limit: int,
    skip_rules: list[str],
) -> SearchResult | None:
    # No --glob for ripgrep: its globs override ignore files (a gitignored *.py would be
    # searched for glob "*.py"); our filter decides, so both engines agree.
    args = [rg, "--json", *_RG_COMMON, "--regexp", pattern, "--", *_base_arg(base)]
    run = _RgRun(args, root)
    return await _off_loop(run, lambda: _rg_search_records(run, skip_rules, wanted, keep, limit))


def _rg_search_records(
    run: _RgRun,
    skip_rules: list[str],
    wanted: Callable[[str], bool],
    keep: Callable[[str], str | None],
    limit: int,
) -> SearchResult | None:
    if skip_rules:
        run.args[2:2] = ["--ignore-file", _ignore_file("\n".join(skip_rules) + "\n")]
    return _rg_matches(run, _once_per_path(wanted), keep, limit)


def _ignore_file(text: str) -> str:
    """An ignore file holding ``text``, written once per process and reused by every search."""
    import hashlib

    path = _scratch() / f"ignore-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
    if not path.exists():  # also when something cleaned the temp folder meanwhile
        path.parent.mkdir(mode=0o700, exist_ok=True)
        replace_atomically(path, text)  # whole, even with two searches writing it at once
    return str(path)


@lru_cache(maxsize=1)
def _scratch() -> Path:
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="agentls-rg-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _rg_matches(
    run: _RgRun,
    wanted: Callable[[str], bool],
    keep: Callable[[str], str | None],
    limit: int,
) -> SearchResult | None:
    matches: list[SearchMatch] = []
    with run:
        for record in run.records(b"\n"):
            event = json.loads(record)
            if event.get("type") != "match":
                continue
            data = event["data"]
            rel = _rg_text(data["path"])
            if not wanted(rel):
                continue
            shown = keep(_rg_text(data["lines"]).rstrip("\n").rstrip("\r"))
            if shown is None:
                continue
            matches.append(SearchMatch(rel, int(data["line_number"]), shown))
            if len(matches) > limit:
                return SearchResult(matches[:limit], truncated=True, engine="ripgrep")
    if run.exit_code() == 2 and not matches:
        return None  # e.g. a Python-only regex feature ripgrep rejects: let Python answer
    return SearchResult(matches, truncated=False, engine="ripgrep")


def _once_per_path(wanted: Callable[[str], bool]) -> Callable[[str], bool]:
    """``wanted`` asked once per file: ripgrep reports every matching line with its path."""
    decided: dict[str, bool] = {}

    def cached(rel: str) -> bool:
        answer = decided.get(rel)
        if answer is None:
            answer = decided[rel] = wanted(rel)
        return answer

    return cached


def ignore_rules_for(secret_globs: Sequence[str]) -> list[str]:
    """Ignore-file lines (git's format) skipping the files secret-file globs name.

    Secret globs match a path's trailing components, case-insensitively; folders are
    never skipped (our filter looks at files only). A glob with braces is left to our
    filter, as git's format has none.
    """
    lines: list[str] = []
    for raw in secret_globs:
        negated = raw.startswith("!")
        body = globs.normalise(raw[1:] if negated else raw).strip("/")
        if not body or "{" in body:
            continue
        line = _any_case(body if "/" not in body else "**/" + body)
        lines += [f"!{line}"] if negated else [line, f"!{line}/"]
    return lines


def _any_case(glob: str) -> str:
    out: list[str] = []
    in_class = escaped = False
    for c in glob:
        if escaped or in_class or not c.isalpha():
            out.append(c)
            in_class = (in_class and c != "]") or (c == "[" and not escaped)
        else:
            out.append(f"[{c.lower()}{c.upper()}]")
        escaped = c == "\\" and not escaped
    return "".join(out)


def _base_arg(base: str) -> list[str]:
    return [] if base == "." else [base]


def _rg_text(field: dict[str, str]) -> str:
    if "text" in field:
        return field["text"]
    return base64.b64decode(field["bytes"]).decode("utf-8", errors="replace")


class _RgRun:
    """One ripgrep process, driven from a worker thread; ``cancel`` (from the event loop)
    kills it, so the worker's read ends. Used as a context manager, it always reaps."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.args = args
        self._cwd = cwd
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._cancelled = False

    def records(self, separator: bytes) -> Iterator[bytes]:
        with self._lock:
            if self._cancelled:
                return
            self._proc = subprocess.Popen(
                self.args, cwd=self._cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
        assert self._proc.stdout is not None
        out = self._proc.stdout.fileno()
        pending = b""
        while chunk := os.read(out, 65536):
            pending += chunk
            *complete, pending = pending.split(separator)
            yield from (record for record in complete if record)
        if pending:
            yield pending
        self._proc.wait()

    def exit_code(self) -> int | None:
        return None if self._proc is None else self._proc.returncode

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._proc is not None and self._proc.returncode is None:
                self._proc.kill()

    def __enter__(self) -> _RgRun:
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            proc = self._proc
        if proc is None:
            return
        if proc.returncode is None:
            proc.kill()  # stopped reading early (enough matches), or failed
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


async def _off_loop(run: _RgRun, work: Callable[[], _T]) -> _T:
    """``work`` on a ripgrep worker; cancelling the caller kills the process it drives."""
    future = asyncio.get_running_loop().run_in_executor(_RG_WORKERS, work)
    try:
        return await future
    except asyncio.CancelledError:
        run.cancel()
        raise
