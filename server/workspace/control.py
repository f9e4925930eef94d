"""Control files: what a command or an edit may change only with a person's yes.

A control file changes what later runs do without showing in the line that
changes it: git's hooks and config (a repository's, a submodule's, anyone's
nested ``.git``), agentls's own settings, an editor's tasks, direnv, CI
workflows. They are control files at any depth, not only at the root, and so
are agentls's own folders (settings, trust store, session logs, checkpoint
stores) and any managed settings file, wherever they sit. The permission gate
asks a person before such a write; the sandbox binds every one that exists
read-only (sandbox.py), so a spelling the gate misread cannot become a write.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

# Names that are control files (or folders of them) wherever they appear.
CONTROL_NAMES = (".git", ".agentls", ".vscode", ".envrc")
# Folders below a name that are control folders wherever they appear.
CONTROL_SUBFOLDERS = (".github/workflows",)

PROTECTED_PATHS: tuple[str, ...] = tuple(
    pattern
    for name in (*CONTROL_NAMES, *CONTROL_SUBFOLDERS)
    for pattern in (name, f"{name}/**", f"**/{name}", f"**/{name}/**")
)

MANAGED_SETTINGS = Path("/etc/agentls/managed-settings.json")


def config_dir() -> Path:
    """agentls's folder of the person's own settings."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "agentls"


def state_dir() -> Path:
    """Where sessions, their logs, checkpoints and approvals are kept."""
    explicit = os.environ.get("AGENTLS_STATE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg and Path(xdg).is_absolute():  # the XDG spec says to ignore relative values
        return Path(xdg) / "agentls"
    return Path.home() / ".local" / "state" / "agentls"


def managed_settings_path() -> Path:
    explicit = os.environ.get("AGENTLS_MANAGED_SETTINGS")
    return Path(explicit).expanduser() if explicit else MANAGED_SETTINGS


_OWN_ENV = ("AGENTLS_STATE_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME",
            "AGENTLS_MANAGED_SETTINGS")  # fmt: skip


def own_paths() -> tuple[str, ...]:
    """agentls's own folders and files as real absolute paths: control files wherever
    they sit (a workspace that holds the home folder holds them too)."""
    return _own_paths(tuple(os.environ.get(name, "") for name in _OWN_ENV))


@lru_cache(maxsize=8)
def _own_paths(environment: tuple[str, ...]) -> tuple[str, ...]:
    """own_paths for the variables that place them (the gate asks for every path a
    line writes: resolving three folders each time would cost more than the rest)."""
    found: list[str] = []
    for path in (config_dir(), state_dir(), managed_settings_path()):
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            continue
        if real not in found:
            found.append(real)
    return tuple(found)


def is_own_path(real: str, own: tuple[str, ...] | None = None) -> bool:
    """Whether the real absolute path ``real`` is one of agentls's own or inside one."""
    for base in own_paths() if own is None else own:
        if real == base or real.startswith(base.rstrip("/") + "/"):
            return True
    return False


def helper_path(root: Path | str, path: str | None = None) -> str:
    """PATH for the programs agentls runs itself (bash for commands, git for
    checkpoints, ripgrep, bubblewrap): without the folders inside the workspace, nor
    relative ones (commands start there). The model can write there, and a program it
    wrote under one of those names would run as agentls's own helper, unsandboxed."""
    entries = (os.environ.get("PATH", os.defpath) if path is None else path).split(os.pathsep)
    base = os.path.realpath(root)
    kept = []
    for entry in entries:
        if not entry or not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        if real == base or real.startswith(base.rstrip("/") + "/"):
            continue
        kept.append(entry)
    return os.pathsep.join(kept)
