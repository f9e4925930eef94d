"""Running commands under bubblewrap: the workspace writable, the rest read-only.

With `bwrap` on PATH (Debian package `bubblewrap`) and working on this
kernel, every run_command runs in its own mount, PID and (unless network is
allowed) network namespace: the workspace and a private /tmp are writable,
everything else is read-only, and no other host is reachable. Where no
sandbox can be had, commands run as they are and the person is told once.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SandboxSettings:
    enabled: bool = True  # False: the person turned it off
    network: bool = False
    writable: tuple[str, ...] = field(default_factory=tuple)  # extra writable folders


@cache
def bwrap_problem() -> str | None:
    """None when bubblewrap works here, else a sentence saying why it does not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    probe = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--unshare-pid", "--unshare-net", "--die-with-parent", "true"]  # fmt: skip
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not start ({exc})"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap does not work here ({reason[-1] if reason else done.returncode})"
    return None


def sandbox_prefix(root: Path, settings: SandboxSettings) -> list[str] | None:
    """The argv that runs a command inside the sandbox, or None for no sandbox."""
    if not settings.enabled or bwrap_problem() is not None:
        return None
    bwrap = shutil.which("bwrap") or "bwrap"
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--bind", str(root), str(root)]  # fmt: skip
    for extra in settings.writable:
        path = Path(extra).expanduser()
        if path.is_dir():
            args += ["--bind", str(path), str(path)]
    args += ["--unshare-pid", "--die-with-parent", "--chdir", str(root)]
    if not settings.network:
        args.append("--unshare-net")
    return [*args, "--"]


def describe(settings: SandboxSettings) -> str:
    if not settings.enabled:
        return "off (turned off in the settings)"
    problem = bwrap_problem()
    if problem is not None:
        return f"unavailable: {problem}"
    return "bubblewrap, " + ("network allowed" if settings.network else "no network")
