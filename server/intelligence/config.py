"""The `languageServers` and `problems` settings, the defaults, and what is on PATH.

Servers are named; each serves the files its patterns match. The defaults are
the usual servers, used when their command is on PATH; a setting of the same
name changes one (``null`` or ``"enabled": false`` turns it off).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class LanguageServerConfig(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    command: str
    args: list[str] = Field(default_factory=list)
    # Globs on the file name ("*.py") or the workspace-relative path ("src/**/*.ts").
    file_patterns: list[str] = Field(min_length=1)
    # The LSP languageId per extension; the default is the extension's usual id.
    language_ids: dict[str, str] = Field(default_factory=dict)
    # A file's project root is the nearest folder holding one of these (else the workspace).
    root_markers: list[str] = Field(default_factory=list)
    initialization_options: dict[str, Any] | None = None
    # Answered to the server's workspace/configuration requests, by section.
    settings: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True
    # How to install it, shown when the command is missing.
    install: str = ""
    start_timeout_seconds: float = Field(default=30.0, gt=0)
    request_timeout_seconds: float = Field(default=10.0, gt=0)


class ProblemsSettings(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    # Problems the turn's edits introduced, added to the next observation.
    after_edits: bool = True
    # The least severity reported after edits ("warning" adds warnings).
    severity: Literal["error", "warning"] = "error"
    # How long to wait for a server's verdict on the edited version.
    settle_seconds: float = Field(default=2.0, ge=0, le=60)


_PY_MARKERS = ["pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json"]
_TS_MARKERS = ["tsconfig.json", "jsconfig.json", "package.json"]

DEFAULT_SERVERS: dict[str, dict[str, Any]] = {
    "basedpyright": {
        "command": "basedpyright-langserver", "args": ["--stdio"],
        "filePatterns": ["*.py", "*.pyi"], "rootMarkers": _PY_MARKERS,
        "install": "pip install basedpyright",
    },
    "pyright": {
        "command": "pyright-langserver", "args": ["--stdio"],
        "filePatterns": ["*.py", "*.pyi"], "rootMarkers": _PY_MARKERS,
        "install": "pip install pyright",
    },
    "ruff": {
        "command": "ruff", "args": ["server"], "filePatterns": ["*.py", "*.pyi"],
        "rootMarkers": ["pyproject.toml", "ruff.toml", ".ruff.toml"],
        "install": "pip install ruff",
    },
    "typescript": {
        "command": "typescript-language-server", "args": ["--stdio"],
        "filePatterns": ["*.ts", "*.tsx", "*.js", "*.jsx", "*.mts", "*.cts", "*.mjs", "*.cjs"],
        "rootMarkers": _TS_MARKERS,
        "install": "npm install -g typescript-language-server typescript",
    },
    "gopls": {
        "command": "gopls", "filePatterns": ["*.go"], "rootMarkers": ["go.work", "go.mod"],
        "install": "go install golang.org/x/tools/gopls@latest",
    },
    "rust-analyzer": {
        "command": "rust-analyzer", "filePatterns": ["*.rs"], "rootMarkers": ["Cargo.toml"],
        "install": "rustup component add rust-analyzer",
    },
}  # fmt: skip
# Only one of these runs: basedpyright when both are installed.
ALTERNATIVES = {"pyright": "basedpyright"}

LANGUAGE_IDS = {
    ".py": "python", ".pyi": "python", ".ts": "typescript", ".mts": "typescript",
    ".cts": "typescript", ".tsx": "typescriptreact", ".js": "javascript",
    ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact", ".go": "go",
    ".rs": "rust",
}  # fmt: skip


@dataclass(frozen=True)
class ServerChoice:
    """One configured server and whether it can run here."""

    name: str
    config: LanguageServerConfig
    executable: str | None  # resolved command, None when missing
    why_missing: str = ""


@lru_cache(maxsize=1)
def _defaults() -> dict[str, LanguageServerConfig]:
    """DEFAULT_SERVERS validated once per process (the configs are frozen; only read)."""
    return {name: LanguageServerConfig.model_validate(raw) for name, raw in DEFAULT_SERVERS.items()}


def effective_servers(
    settings: Mapping[str, LanguageServerConfig | None], path_env: str | None = None
) -> list[ServerChoice]:
    """The defaults merged with the settings, each resolved on PATH."""
    path = path_env if path_env is not None else os.environ.get("PATH")
    if not settings:  # most sessions: the defaults alone, the same for every session
        return list(_default_choices(path))
    return _choose(settings, path)


@lru_cache(maxsize=8)
def _default_choices(path_env: str | None) -> tuple[ServerChoice, ...]:
    return tuple(_choose({}, path_env))


def _choose(
    settings: Mapping[str, LanguageServerConfig | None], path_env: str | None
) -> list[ServerChoice]:
    merged: dict[str, LanguageServerConfig | None] = {**_defaults(), **settings}
    choices = []
    for name, config in merged.items():
        if config is None or not config.enabled:
            continue
        executable = _which(config.command, path_env)
        why = "" if executable else _missing(config)
        choices.append(ServerChoice(name, config, executable, why))
    present = {c.name for c in choices if c.executable}
    return [
        c
        for c in choices
        if not (
            c.name in ALTERNATIVES and ALTERNATIVES[c.name] in present and c.name not in settings
        )
    ]


@lru_cache(maxsize=256)
def _which(command: str, path_env: str | None) -> str | None:
    """Each session resolves every server; PATH rarely changes within a process."""
    return shutil.which(command, path=path_env)


def forget_lookups() -> None:
    """Look on PATH again from now on (a server may have been installed since)."""
    _which.cache_clear()
    _default_choices.cache_clear()


def _missing(config: LanguageServerConfig) -> str:
    how = f"; install it: {config.install}" if config.install else ""
    return f"{config.command} was not found on PATH{how}"


def discover_language_servers(
    settings: Mapping[str, LanguageServerConfig | None] | None = None, *, fresh: bool = True
) -> list[ServerChoice]:
    """Which language servers agentls would use here, and why any is missing (for doctor).

    ``fresh`` looks on PATH again, so a server installed since shows up.
    """
    if fresh:
        forget_lookups()
    return effective_servers(settings or {}, os.environ.get("PATH"))


@dataclass(frozen=True)
class ServerStatus:
    """One server, default or configured, as doctor shows it: whether it would run here,
    and if not, why and how to install it."""

    name: str
    command: str
    file_patterns: tuple[str, ...]
    executable: str | None
    would_run: bool
    why_not: str = ""
    install: str = ""


def describe_language_servers(
    settings: Mapping[str, LanguageServerConfig | None] | None = None,
) -> list[ServerStatus]:
    """Every default server and every configured one, those turned off and those another
    server stands in for included (the defaults first, then the settings' own).
    Call after ``discover_language_servers`` (it looks on PATH afresh)."""
    settings = settings or {}
    chosen = {c.name for c in effective_servers(settings, os.environ.get("PATH"))}
    out = []
    for name in [*DEFAULT_SERVERS, *(n for n in settings if n not in DEFAULT_SERVERS)]:
        default = DEFAULT_SERVERS.get(name)
        config = (
            settings[name] if name in settings else LanguageServerConfig.model_validate(default)
        )
        if config is None or not config.enabled:
            base = config or LanguageServerConfig.model_validate(default)
            why = "turned off in the languageServers setting"
            patterns = tuple(base.file_patterns)
            out.append(ServerStatus(name, base.command, patterns, None, False, why))
            continue
        executable = _which(config.command, os.environ.get("PATH"))
        why, install = "", ""
        if executable is None:
            why, install = f"{config.command} was not found on PATH", config.install
        elif name not in chosen:
            why = f"{ALTERNATIVES[name]} runs instead (both serve the same files)"
        out.append(
            ServerStatus(
                name, config.command, tuple(config.file_patterns), executable,
                not why, why, install,
            )
        )  # fmt: skip
    return out


def language_id(config: LanguageServerConfig, path: str) -> str:
    suffix = Path(path).suffix.lower()
    return config.language_ids.get(suffix) or LANGUAGE_IDS.get(suffix, suffix.lstrip(".") or "text")


def missing_here(
    root: Path | None, settings: Mapping[str, LanguageServerConfig | None] | None = None
) -> list[str]:
    """For doctor: the kinds of files this workspace has that no language server would
    check, and why (a server's root marker, or a matching file, in the top folder)."""
    from agentls.workspace.globs import match_path

    if root is None:
        return []
    try:
        with os.scandir(root) as entries:
            names = [entry.name for entry in islice(entries, 1000)]
    except OSError:
        return []
    groups: dict[tuple[str, ...], list[ServerChoice]] = {}
    for choice in discover_language_servers(settings):
        groups.setdefault(tuple(choice.config.file_patterns), []).append(choice)
    found = []
    for patterns, group in groups.items():
        if any(c.executable for c in group):
            continue
        markers = {m for c in group for m in c.config.root_markers}
        if markers.intersection(names) or any(
            match_path(p, n) for p in patterns if "/" not in p for n in names
        ):
            why = "; ".join(c.why_missing for c in group)
            found.append(f"no language server would check {', '.join(patterns)} here: {why}")
    return found
