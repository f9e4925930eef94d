"""Running commands and language servers under bubblewrap, and the environment they get.

With `bwrap` on PATH (Debian package `bubblewrap`) and working on this kernel,
every run_command runs in its own mount, PID, IPC and (unless trusted settings
allow the network) network namespace. The sandbox does not show the host's
file system: it binds read-only only what programs need (/usr, /bin, /sbin,
/lib*, /etc and the tool folders on PATH, never their parents), the workspace
read-write, and gives /tmp, /run, /var/run and HOME private, empty mounts,
/dev a minimal device set and /proc its own. So no Unix socket of the host (a
Docker, D-Bus, SSH or GPG agent) can be reached, and without network no
abstract socket or loopback port either. Where no sandbox can be had, commands
run as they are, and the person is told once per session (`NoSandboxNotice`).

Inside the writable workspace, every control file and folder that exists
(control.py, control_paths.py) is bound read-only again, and agentls's own
folders wherever the sandbox shows them, so no spelling of a command can
write them; a run a person approved to write them gets ``control_writable``.

Language servers are started the same way (``server_launch``): the workspace
read-only, no network, write access only to a cache folder of their own, so
the workspace code they run (a ``.venv`` interpreter, tsserver plugins, build
scripts) runs there too.

Every command and language server, sandboxed or not, gets a minimal
environment: the variables in ``PASSED_ENV`` (and ``LC_*``) from the agentls
process, then the person's ``sandboxEnv``. Nothing else of the agentls
process's environment reaches them, so its API keys and tokens never do.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from agentls.workspace import control, control_paths
from agentls.workspace.control import helper_path
from agentls.workspace.paths import DEFAULT_SECRET_PATTERNS

log = logging.getLogger(__name__)

# The only variables of the agentls process a command sees (plus LC_*).
PASSED_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL")

# Read-only for every command; a missing one is skipped, a symlink stays a symlink.
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_PRIVATE_DIRS = ("/tmp", "/run", "/var/tmp")


@dataclass
class NoSandboxNotice:
    """Whether a session's person was told that its commands run without a sandbox: once
    per session, in whichever process runs it (``record`` keeps it in the session's log)."""

    given: bool = False
    record: Callable[[str], None] | None = None

    def give(self, text: str) -> bool:
        """True the first time (``text`` is told now, and recorded), then False."""
        if self.given:
            return False
        self.given = True
        if self.record is not None:
            self.record(text)
        return True


@dataclass(frozen=True)
class SandboxSettings:
    enabled: bool = True  # False: the person turned it off
    required: bool = False  # where no sandbox can be had, nothing runs (sandbox "required")
    network: bool = False
    writable: tuple[str, ...] = field(default_factory=tuple)  # extra writable folders
    env: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # sandboxEnv
    # Files no command output or search may show: the workspace's secret-file globs
    # travel with the rest of its protection settings.
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    # permissions.protectedPaths: bound read-only inside the sandbox like control files.
    protected_patterns: tuple[str, ...] = ()
    # One session's (its conversation sets it); None: each workspace object tells once.
    notice: NoSandboxNotice | None = field(default=None, compare=False, repr=False)
    # maxBackgroundProcesses: how many background commands a session runs at once.
    max_processes: int = 8

    def for_servers(self) -> SandboxSettings:
        """Only what a language server's sandbox depends on (equal when that is)."""
        return SandboxSettings(
            enabled=self.enabled, required=self.required, writable=self.writable, env=self.env
        )


def command_environment(settings: SandboxSettings, source: Mapping[str, str]) -> dict[str, str]:
    """The environment of a command: the pass-list from ``source``, then sandboxEnv."""
    env = {k: v for k, v in source.items() if k in PASSED_ENV or k.startswith("LC_")}
    env.update(settings.env)
    if "PATH" in env:  # "" or "." on PATH: every name could be a file the model wrote
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if os.path.isabs(p))
    return env


def _bwrap(root: Path | None) -> str | None:
    """bubblewrap itself, never one the workspace put on PATH (it would be the sandbox)."""
    return launcher("bwrap", root)


def launcher(name: str, root: Path | None) -> str | None:
    """A program of the sandbox's own (``bwrap``, ``nsenter``), never one the workspace
    put on PATH."""
    import shutil

    found: str | None = shutil.which(name, path=helper_path(root or "/nonexistent"))
    return found


@cache
def bwrap_problem() -> str | None:
    """None when bubblewrap works here, else a sentence saying why it does not."""
    bwrap = _bwrap(None)
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
    root: Path,
    settings: SandboxSettings,
    path: str | None = None,
    *,
    control_writable: bool = False,
    readable: Sequence[str] = (),
) -> list[str] | None:
    """The argv that runs a command inside the sandbox, or None for no sandbox.

    ``path`` is the PATH commands get (default: this process's); its folders are
    made readable so the tools on it work. ``control_writable`` (a person approved
    a run that writes control files) leaves their read-only binds out. ``readable``:
    files outside the workspace shown read-only (a hook's own script). Walks the
    workspace: call it off the event loop.
    """
    if not settings.enabled or bwrap_problem() is not None:
        return None
    bwrap = _bwrap(root)
    if bwrap is None:
        return None  # only a bwrap inside the workspace: the caller says it ran without
    search_path = os.environ.get("PATH", "") if path is None else path
    layout = _layout(
        root, settings, search_path, control_writable=control_writable, readable=readable
    )
    return [bwrap, *layout, "--"]


@dataclass(frozen=True)
class ServerLaunch:
    """How to start one language server: its argv, environment, and whether sandboxed."""

    argv: list[str]
    env: dict[str, str]
    sandboxed: bool


def server_launch(
    workspace: Path,
    settings: SandboxSettings,
    name: str,
    program: Sequence[str],
    *,
    cwd: Path | None = None,
) -> ServerLaunch:
    """A language server as a command: the minimal environment, and (when bubblewrap
    works and the sandbox is on) the workspace read-only, HOME private, no network,
    write access only to its own cache folder. Makes that folder: call it off the
    event loop."""
    cache_dir = server_cache(name)
    env = {**command_environment(settings, os.environ), "XDG_CACHE_HOME": str(cache_dir)}
    bwrap = _bwrap(workspace)
    if not settings.enabled or bwrap_problem() is not None or bwrap is None:
        if settings.required:
            why = bwrap_problem() or "bubblewrap is not on PATH"
            raise OSError(f"the sandbox is required here and cannot start: {why}")
        return ServerLaunch(list(program), env, sandboxed=False)
    layout = _server_layout(
        workspace, settings, program, cache_dir, cwd or workspace, env.get("PATH", "")
    )
    return ServerLaunch([bwrap, *layout, "--", *program], env, sandboxed=True)


def server_cache(name: str) -> Path:
    """A language server's own cache folder (made if missing), its only writable one."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).lstrip(".") or "_"
    folder = base / "agentls" / "language-servers" / safe
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


# What a command's own bwrap needs to make its /dev inside the session's sandbox (which
# mounts no devpts of its own: that would put its namespaces under a second user
# namespace, which commands could not join).
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")


def _base_layout(*, devices_only: bool = False) -> list[str]:
    args: list[str] = []
    for folder in _SYSTEM_DIRS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    if devices_only:
        for device in _DEVICES:
            args += ["--dev-bind-try", device, device]
    else:
        args += ["--dev", "/dev"]
    args += ["--proc", "/proc"]
    for folder in _PRIVATE_DIRS:
        args += ["--tmpfs", folder]
    args += ["--symlink", "../run", "/var/run"]
    return args


_NAMESPACES = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]


def _layout(
    root: Path,
    settings: SandboxSettings,
    search_path: str,
    *,
    control_writable: bool = False,
    readable: Sequence[str] = (),
) -> list[str]:
    args = _base_layout()
    shown = _shown(args, root, settings, search_path, readable)
    if not control_writable and root != Path("/"):
        args += _control_binds(root, settings.protected_patterns, shown)
    args += _NAMESPACES
    args += ["--chdir", str(root)]
    if not settings.network:
        args.append("--unshare-net")
    return args


def _shown(
    args: list[str],
    root: Path,
    settings: SandboxSettings,
    search_path: str,
    readable: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """Add to ``args`` what the sandbox shows besides the system: a private HOME, the tool
    folders (and ``readable``) read-only, the workspace and the extra writable folders;
    return those two as (where the sandbox shows it, what it is on the host)."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and not root.is_relative_to(home):
        args += ["--tmpfs", home]  # a private HOME: no dotfiles, keys or agent sockets
    for path in _tool_paths(search_path, home, str(root)):
        args += ["--ro-bind-try", path, path]
    for path in readable:
        args += ["--ro-bind-try", path, path]
    shown: list[tuple[str, str]] = []
    if root != Path("/"):
        shown.append((str(root), str(root)))
    shown += _writable(settings)
    for inside, _real in sorted(shown, key=lambda pair: _parts(pair[0])):
        args += ["--bind", inside, inside]
    return shown


def session_layout(root: Path, settings: SandboxSettings, search_path: str) -> list[str]:
    """The session's sandbox, which every command of the session joins: what a command's
    sandbox shows (the workspace writable, control files included: each command binds
    its own read-only), one network namespace (loopback only unless the network is
    allowed), one private /tmp and /run, in a user namespace of its own."""
    args = _base_layout(devices_only=True)
    _shown(args, root, settings, search_path)
    args += [*_NAMESPACES, "--unshare-user", "--chdir", str(root)]
    if not settings.network:
        args.append("--unshare-net")
    return args


def command_layout(
    root: Path, settings: SandboxSettings, search_path: str, *, control_writable: bool = False
) -> list[str]:
    """One command inside the session's sandbox (which it has joined): everything that
    sandbox shows, its own /dev, process namespace and HOME, and every control file that
    exists now read-only (unless a person approved this run to write them: it then gets
    a /tmp of its own too). Walks the workspace: call it off the event loop."""
    args = ["--bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    fresh: list[str] = []
    home = os.path.expanduser("~")
    if home not in ("", "/") and not root.is_relative_to(home):
        fresh.append(home)  # HOME its own: no dotfile of an earlier command reaches it
    if control_writable:
        # A run a person let write control files reads nothing an earlier command left in
        # the session's /tmp (a planted link or config).
        fresh += ["/tmp", "/var/tmp"]
    for folder in fresh:
        args += ["--tmpfs", folder]
    # What the session's sandbox shows inside those folders, shown again as it was.
    writable = [inside for inside, _real in _writable(settings)]
    if root != Path("/"):
        writable.append(str(root))
    tools = _tool_paths(search_path, home, str(root))
    again = [(p, "--bind") for p in writable] + [(p, "--ro-bind-try") for p in tools]
    for path, how in sorted(again, key=lambda pair: _parts(pair[0])):
        if any(_within(path, folder) for folder in fresh):
            args += [how, path, path]
    if not control_writable and root != Path("/"):
        shown = [(str(root), str(root)), *_writable(settings)]
        args += _control_binds(root, settings.protected_patterns, shown)
    return [*args, "--unshare-pid", "--die-with-parent", "--chdir", str(root)]


def _writable(settings: SandboxSettings) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for extra in settings.writable:
        writable = Path(extra).expanduser()
        if writable.is_dir():
            found.append((str(writable), os.path.realpath(writable)))
    return found


def _control_binds(
    root: Path, protected: tuple[str, ...], shown: list[tuple[str, str]]
) -> list[str]:
    """Control files read-only over the writable binds, and the folders that hold
    them fixed in place (a mount point cannot be renamed or removed)."""
    found = control_paths.find(root, protected)
    read_only = set(found.read_only)
    fixed = set(found.fixed)
    bases = [inside for inside, _real in shown]
    for inside, real in shown:
        for own in control.own_paths():
            if _within(own, real) and os.path.exists(own):
                read_only.add(inside + own[len(real) :])  # where the sandbox shows it
            elif _within(real, own):
                read_only.add(inside)  # the whole folder is one of agentls's own
    settled = control_paths.settle(bases, read_only, fixed)
    args: list[str] = []
    for path in settled.fixed:
        args += ["--bind-try", path, path]
    for path in settled.read_only:
        args += ["--ro-bind-try", path, path]
    return args


def _server_layout(
    workspace: Path,
    settings: SandboxSettings,
    program: Sequence[str],
    cache_dir: Path,
    cwd: Path,
    search_path: str,
) -> list[str]:
    args = _base_layout()
    home = os.path.expanduser("~")
    if home not in ("", "/") and not Path(home).is_relative_to(workspace):
        args += ["--tmpfs", home]
    # The server's program, with its tool folder, and the files its arguments name
    # (a script it runs; one in node_modules brings its packages).
    programs = [program[0]] if program and os.path.isabs(program[0]) else []
    folders = os.pathsep.join([*(os.path.dirname(p) for p in programs), search_path])
    for path in _tool_paths(folders, home, str(workspace), programs):
        args += ["--ro-bind-try", path, path]
    for word in program[1:]:
        if os.path.isabs(word) and os.path.exists(word):
            real = os.path.realpath(word)
            shown = _outer_node_modules(real) or real
            args += ["--ro-bind-try", shown, shown]
    for inside, _real in _writable(settings):
        args += ["--ro-bind", inside, inside]
    args += ["--ro-bind", str(workspace), str(workspace)]
    args += ["--bind", str(cache_dir), str(cache_dir)]
    args += [*_NAMESPACES, "--unshare-net", "--chdir", str(cwd)]
    return args


# Beside a bin folder, what its programs load: a venv's or an install prefix's libraries.
_PREFIX_SIBLINGS = ("lib", "lib32", "lib64", "libexec", "pyvenv.cfg")
# Beside a version manager's shims (pyenv, rbenv, nodenv, asdf): the manager and its installs.
_SHIM_SIBLINGS = (*_PREFIX_SIBLINGS, "bin", "versions", "version", "installs", "plugins")


def _tool_paths(search_path: str, home: str, root: str, programs: Sequence[str] = ()) -> list[str]:
    """What to bind read-only so the tools on PATH (and ``programs``) run.

    Each folder on PATH itself, never its parent. Beside a ``bin``/``sbin`` folder
    the libraries of its prefix (``lib``, ``lib64``, ``libexec``, ``pyvenv.cfg``),
    beside ``shims`` also the version manager's own folders (``versions``,
    ``plugins``…), never ``share``, ``etc`` or the prefix itself; none beside a
    folder whose parent is ``/``, HOME or holds HOME or the workspace. Then the same
    for the folders of the real programs its links and ``#!`` lines lead to (a
    program inside ``node_modules`` brings that whole ``node_modules``, its
    packages). System folders and the workspace are shown anyway.
    """

    def too_wide(folder: str) -> bool:
        return folder in ("/", home) or _within(home, folder) or _within(root, folder)

    def shown_anyway(path: str) -> bool:
        return _is_system(path) or (root != "/" and _within(path, root))

    found: list[str] = []
    seen: set[str] = set()
    pending = [e for e in search_path.split(os.pathsep) if e and os.path.isabs(e)]

    def program(real: str) -> None:
        if shown_anyway(real):
            return
        modules = _outer_node_modules(real)
        folder = os.path.dirname(real)
        if modules is not None:
            found.append(modules)
        elif too_wide(folder):
            found.append(real)  # the program alone
        else:
            pending.append(folder)

    for given in programs:
        program(os.path.realpath(given))
    while pending:
        folder = os.path.realpath(pending.pop(0))
        if folder in seen:
            continue
        seen.add(folder)
        if shown_anyway(folder) or too_wide(folder) or not os.path.isdir(folder):
            continue
        found.append(folder)
        parent, name = os.path.split(folder)
        if name in ("bin", "sbin", "shims") and not too_wide(parent):
            siblings = _SHIM_SIBLINGS if name == "shims" else _PREFIX_SIBLINGS
            if name == "shims":  # pyenv's hooks: ~/.pyenv/pyenv.d
                siblings = (*siblings, os.path.basename(parent).lstrip(".") + ".d")
            found += [p for s in siblings if os.path.exists(p := os.path.join(parent, s))]
        for real in _PROGRAMS.get(folder):
            program(real)
    return _outermost(os.path.realpath(p) for p in found)


class _ProgramCache:
    """The real programs each tool folder's links and ``#!`` lines lead to (outside
    it), kept by the folder's inode and mtime: a repeated command costs one stat per
    tool folder. (A link elsewhere that changes unseen only leaves a tool unusable.)"""

    def __init__(self) -> None:
        self._known: dict[str, tuple[int, int, tuple[str, ...]]] = {}

    def get(self, folder: str) -> tuple[str, ...]:
        try:
            st = os.stat(folder)
        except OSError:
            return ()
        known = self._known.get(folder)
        if known is not None and known[:2] == (st.st_ino, st.st_mtime_ns):
            return known[2]
        reading = time.time_ns()
        found = _read_programs(folder)
        if st.st_mtime_ns < reading - 2_000_000_000:  # else changed too recently to trust
            self._known[folder] = (st.st_ino, st.st_mtime_ns, found)
        return found


_PROGRAMS = _ProgramCache()


def _read_programs(folder: str) -> tuple[str, ...]:
    found: set[str] = set()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return ()
    for entry in entries:
        try:
            if entry.is_symlink():
                real = os.path.realpath(entry.path)
                if os.path.isfile(real):
                    found.add(real)
            elif entry.is_file(follow_symlinks=False):
                interpreter = _interpreter(entry.path)
                if interpreter is not None:
                    found.add(interpreter)
        except OSError:
            continue
    found.discard("")
    return tuple(sorted(p for p in found if os.path.dirname(p) != folder))


def _interpreter(path: str) -> str | None:
    """The real interpreter an executable script's ``#!`` line names by absolute path."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not os.fstat(fd).st_mode & 0o111:
            return None
        head = os.read(fd, 256)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].split()
    if not words or not words[0].startswith(b"/"):
        return None
    real = os.path.realpath(os.fsdecode(words[0]))
    return real if os.path.isfile(real) else None


def _outer_node_modules(path: str) -> str | None:
    parts = path.split("/")
    if "node_modules" not in parts:
        return None
    return "/".join(parts[: parts.index("node_modules") + 1])


def _is_system(path: str) -> bool:
    return any(_within(path, d) for d in _SYSTEM_DIRS)


def _within(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _parts(path: str) -> list[str]:
    return path.split("/")


def _outermost(paths: Iterable[str]) -> list[str]:
    """The paths, none inside another, in the order first given."""
    unique = list(dict.fromkeys(paths))
    return [p for p in unique if not any(q != p and _within(p, q) for q in unique)]


def describe(settings: SandboxSettings) -> str:
    if not settings.enabled:
        return "off (turned off in the settings)"
    problem = bwrap_problem()
    if problem is not None:
        if settings.required:
            return f"required but unavailable ({problem}): no command runs"
        return f"unavailable: {problem}"
    required = " (required)" if settings.required else ""
    shared = (
        "one sandbox per session"
        if launcher("nsenter", None) is not None
        else "a sandbox per command (nsenter is missing: no sandbox per session)"
    )
    network = "network allowed" if settings.network else "no network"
    return f"bubblewrap{required}, {network}, {shared}"


def startup_warning(settings: SandboxSettings) -> str | None:
    """What to tell the person at start when commands would run unsandboxed, else None."""
    if not settings.enabled:
        return None
    problem = bwrap_problem()
    if problem is None:
        return None
    if settings.required:
        return (
            f"commands will NOT run: the sandbox is required here and cannot start ({problem}). "
            "Install bubblewrap (e.g. `apt install bubblewrap`)."
        )
    return (
        f"commands will run WITHOUT a sandbox: {problem}. Install bubblewrap "
        "(e.g. `apt install bubblewrap`), or set sandbox to off to silence this."
    )
