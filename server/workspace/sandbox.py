"""Running commands under bubblewrap, and the environment every command gets.

With `bwrap` on PATH (Debian package `bubblewrap`) and working on this kernel,
every run_command runs in its own mount, PID, IPC and (unless trusted settings
allow the network) network namespace. The sandbox does not show the host's
file system: it binds read-only only what programs need (/usr, /bin, /sbin,
/lib*, /etc and the folders on PATH), the workspace read-write, and gives
/tmp, /run, /var/run and HOME private, empty mounts, /dev a minimal device set
and /proc its own. So no Unix socket of the host (a Docker, D-Bus, SSH or GPG
agent) can be reached, and without network no abstract socket or loopback
port either. Where no sandbox can be had, commands run as they are and the
person is told at start.

Every command, sandboxed or not, gets a minimal environment: the variables in
``PASSED_ENV`` (and ``LC_*``) from the agentls process, then the person's
``sandboxEnv``. Nothing else of the agentls process's environment reaches a
command, so its API keys and tokens never do.
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from agentls.workspace.paths import DEFAULT_SECRET_PATTERNS

log = logging.getLogger(__name__)

# The only variables of the agentls process a command sees (plus LC_*).
PASSED_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL")

# Read-only for every command; a missing one is skipped, a symlink stays a symlink.
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_PRIVATE_DIRS = ("/tmp", "/run", "/var/tmp")


@dataclass(frozen=True)
class SandboxSettings:
    enabled: bool = True  # False: the person turned it off
    network: bool = False
    writable: tuple[str, ...] = field(default_factory=tuple)  # extra writable folders
    env: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # sandboxEnv
    # Files no command output or search may show: the workspace's secret-file globs
    # travel with the rest of its protection settings.
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS


def command_environment(settings: SandboxSettings, source: Mapping[str, str]) -> dict[str, str]:
    """The environment of a command: the pass-list from ``source``, then sandboxEnv."""
    env = {k: v for k, v in source.items() if k in PASSED_ENV or k.startswith("LC_")}
    env.update(settings.env)
    return env


@cache
def bwrap_problem() -> str | None:
    """None when bubblewrap works here, else a sentence saying why it does not."""
    import shutil  # here, not at start-up

    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    probe = [bwrap, *_layout(Path("/"), SandboxSettings(), "/"), "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not start ({exc})"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap does not work here ({reason[-1] if reason else done.returncode})"
    return None


def sandbox_prefix(
    root: Path, settings: SandboxSettings, path: str | None = None
) -> list[str] | None:
    """The argv that runs a command inside the sandbox, or None for no sandbox.

    ``path`` is the PATH commands get (default: this process's); its folders are
    made readable so the tools on it work.
    """
    if not settings.enabled or bwrap_problem() is not None:
        return None
    import shutil

    bwrap = shutil.which("bwrap") or "bwrap"
    search_path = os.environ.get("PATH", "") if path is None else path
    return [bwrap, *_layout(root, settings, search_path), "--"]


def _layout(root: Path, settings: SandboxSettings, search_path: str) -> list[str]:
    args: list[str] = []
    for folder in _SYSTEM_DIRS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    args += ["--dev", "/dev", "--proc", "/proc"]
    for folder in _PRIVATE_DIRS:
        args += ["--tmpfs", folder]
    args += ["--symlink", "../run", "/var/run"]
    home = os.path.expanduser("~")
    if home not in ("", "/") and not root.is_relative_to(home):
        args += ["--tmpfs", home]  # a private HOME: no dotfiles, keys or agent sockets
    for folder in _tool_dirs(search_path, home, str(root)):
        args += ["--ro-bind", folder, folder]
    if root != Path("/"):
        args += ["--bind", str(root), str(root)]
    for extra in settings.writable:
        writable = Path(extra).expanduser()
        if writable.is_dir():
            args += ["--bind", str(writable), str(writable)]
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
    args += ["--chdir", str(root)]
    if not settings.network:
        args.append("--unshare-net")
    return args


def _tool_dirs(search_path: str, home: str, root: str) -> list[str]:
    """Folders on PATH outside the system ones, read-only, so their tools work.

    A ``bin`` or ``shims`` folder brings its parent (a pyenv, cargo or nvm
    install needs its siblings), unless that parent is ``/``, HOME or holds
    HOME or the workspace; such a folder itself is never shown.
    """

    def too_wide(folder: str) -> bool:
        return folder in ("/", home) or any(
            inner == folder or inner.startswith(folder.rstrip("/") + "/") for inner in (home, root)
        )

    found: list[str] = []
    for entry in search_path.split(os.pathsep):
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if any(real == d or real.startswith(d + "/") for d in _SYSTEM_DIRS) or too_wide(real):
            continue
        parent = os.path.dirname(real)
        wide = os.path.basename(real) in ("bin", "sbin", "shims") and not too_wide(parent)
        folder = parent if wide else real
        if any(folder == f or folder.startswith(f + "/") for f in found):
            continue
        found = [f for f in found if not f.startswith(folder + "/")] + [folder]
    return found


def describe(settings: SandboxSettings) -> str:
    if not settings.enabled:
        return "off (turned off in the settings)"
    problem = bwrap_problem()
    if problem is not None:
        return f"unavailable: {problem}"
    return "bubblewrap, " + ("network allowed" if settings.network else "no network")


def startup_warning(settings: SandboxSettings) -> str | None:
    """What to tell the person at start when commands would run unsandboxed, else None."""
    if not settings.enabled:
        return None
    problem = bwrap_problem()
    if problem is None:
        return None
    return (
        f"commands will run WITHOUT a sandbox: {problem}. Install bubblewrap "
        "(e.g. `apt install bubblewrap`), or set sandbox to off to silence this."
    )
