"""`agentls ask` served by a warm process (the default; ``AGENTLS_WARM=0`` turns it off), for
asks that follow each other: the interpreter, agentls and the model SDKs (a second or more
of imports) load once.

The first such ask starts the warm process in the background (its own session, no
terminal, working folder ``/``) and runs as usual; the next ones connect to its
socket in the state folder and hand over their arguments, working folder, umask,
environment and standard streams (the descriptors themselves). The warm process
forks; the child runs the ask exactly as the command would, on the person's
terminal or pipes, and says its exit status back. A termination signal the command
gets is passed to the child, and a command that ends early ends its child.

Only the person is served: the state folder must be theirs and closed to others,
the socket is theirs alone (0600), and each side checks the other's user id on the
connection before anything is said, so an environment (API keys) never goes to a
process of another user. The socket is named after agentls's code folder and the
interpreter, so another checkout or venv never runs this one's code. The warm
process ends after ``AGENTLS_WARM_IDLE_SECONDS`` (900) without an ask, and at the
first ask after agentls's code or the installed packages changed on disk: that ask
runs in its own process, and the next one starts a fresh warm process. Whatever
fails on the way (no socket, another user's, a refusal, an early close) the
command runs the ask itself.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, TextIO

from agentls import __version__
from agentls.workspace.control import state_dir

SWITCH = "AGENTLS_WARM"
_OFF = frozenset({"0", "false", "no", "off"})
IDLE = "AGENTLS_WARM_IDLE_SECONDS"
DEFAULT_IDLE_SECONDS = 900.0
START_SECONDS = 120.0  # longer than a warm process takes to start, on a loaded machine
_MAX_HEADER = 1 << 20
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux
_CODE_ROOT = Path(__file__).resolve().parents[1]
_serving = False  # set in the warm process's children: they run the ask themselves


def socket_path() -> Path:
    key = hashlib.sha256(f"{_CODE_ROOT}\0{sys.executable}".encode()).hexdigest()[:12]
    return state_dir() / f"warm-{__version__}-{key}.sock"


def switched_off() -> bool:
    return os.environ.get(SWITCH, "").strip().lower() in _OFF


def idle_seconds() -> float:
    try:
        return float(os.environ.get(IDLE) or DEFAULT_IDLE_SECONDS)
    except ValueError:
        return DEFAULT_IDLE_SECONDS


def wanted(argv: Sequence[str]) -> bool:
    return (
        not _serving
        and not switched_off()
        and argv[:1] == ["ask"]
        and hasattr(socket, "SO_PEERCRED")  # Linux: the peer's user id can be checked
    )


def _peer(connection: socket.socket) -> tuple[int, int]:
    """The process at the other end of a Unix socket, and its user id."""
    raw = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", raw)
    return int(pid), int(uid)


def _peer_uid(connection: socket.socket) -> int:
    return _peer(connection)[1]


def _private(folder: Path) -> bool:
    """The folder is the person's and no one else can add or swap a file in it."""
    try:
        info = folder.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _umask() -> int:
    current = os.umask(0o077)
    os.umask(current)
    return current


def ask_warm(argv: Sequence[str]) -> int | None:
    """The ask's exit status, run by the warm process; None when this process should run
    the ask itself (no warm process yet: one is started for the next ask)."""
    path = socket_path()
    if len(os.fsencode(path)) > _MAX_SOCKET_PATH:
        return None
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(os.fspath(path))
    except OSError:
        connection.close()
        _start_server(path)
        return None
    try:
        return _handed_over(connection, path, argv)
    except KeyboardInterrupt:  # Ctrl-C before the child said who it is: it ends with us
        return 130


def _handed_over(connection: socket.socket, path: Path, argv: Sequence[str]) -> int | None:
    with connection:
        try:  # nothing is said to a socket that is not the person's own
            if not _private(path.parent) or _peer_uid(connection) != os.getuid():
                return None
            header = {
                "argv": list(argv), "cwd": os.getcwd(), "umask": _umask(),
                "env": dict(os.environ),
            }  # fmt: skip
            socket.send_fds(connection, [json.dumps(header).encode() + b"\n"], [0, 1, 2])
        except OSError:  # the working folder gone, the connection broken: run here
            return None
        reader = connection.makefile("rb")
        first = _message(reader)
        child = first.get("pid")
        if not isinstance(child, int):
            return None  # refused (its code changed) or gone: run here
        passed: list[int] = []
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, lambda number, frame: _pass_on(child, number, passed))
        code = _message(reader).get("exit")
    if isinstance(code, int):
        return code
    if passed:  # it ended of the signal, before it could say so: as a shell reports it
        return 128 + passed[0]
    print("agentls: the warm process's ask ended without an exit status", file=sys.stderr)
    return 1


def _pass_on(child: int, signum: int, passed: list[int]) -> None:
    passed.append(signum)
    with contextlib.suppress(OSError):
        os.kill(child, signum)


def _message(reader: BinaryIO) -> dict[str, object]:
    try:
        line = reader.readline(_MAX_HEADER)
        data = json.loads(line) if line else {}
    except (OSError, ValueError):
        data = {}
    return data if isinstance(data, dict) else {}


def _starting(path: Path) -> Path:
    """Made by the ask that starts a warm process, removed once it listens or gave up: the
    asks that come meanwhile do not start one each."""
    return path.with_name(path.name + ".starting")


def _claim_start(path: Path) -> bool:
    marker = _starting(path)
    for _ in range(2):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return True
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - marker.stat().st_mtime < START_SECONDS:
                    return False  # one is starting
                marker.unlink()  # left by one that died while starting
        except OSError:
            return False
    return False


def _start_server(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _private(path.parent) or not _claim_start(path):
            return  # others could swap the socket, or one is starting: run here
        subprocess.Popen(
            [sys.executable, "-c", "import sys\nfrom agentls.cli.warm import serve\n"
             "serve(sys.argv[1])", os.fspath(path)],
            cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
        )  # fmt: skip
    except OSError:
        return  # no warm process: every ask runs in its own


def status() -> dict[str, object]:
    """For `agentls doctor`: whether asks are served warm here, and by which process. The
    probe sends nothing and does not count as an ask (the idle time runs on)."""
    path = socket_path()
    found: dict[str, object] = {
        "enabled": not switched_off(), "socket": os.fspath(path),
        "idleSeconds": idle_seconds(), "servingPid": None, "unusable": None,
    }  # fmt: skip
    if not found["enabled"]:
        return found
    if not hasattr(socket, "SO_PEERCRED"):
        found["unusable"] = "this system cannot check a socket's owner (Linux only)"
    elif len(os.fsencode(path)) > _MAX_SOCKET_PATH:
        found["unusable"] = f"the socket's path would be over {_MAX_SOCKET_PATH} bytes"
    elif path.parent.exists() and not _private(path.parent):
        found["unusable"] = f"the state folder {path.parent} is not yours alone"
    else:
        found["servingPid"] = _serving_pid(path)
    return found


def _serving_pid(path: Path) -> int | None:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(os.fspath(path))
        pid, uid = _peer(probe)
    except OSError:
        return None
    finally:
        probe.close()
    return pid if uid == os.getuid() else None


# --- the warm process -------------------------------------------------------------


def code_stamp() -> tuple[float, ...]:
    """When agentls's source files and the folders of installed packages last changed."""
    newest = max((p.stat().st_mtime for p in _CODE_ROOT.rglob("*.py")), default=0.0)
    loaded = (sys.modules.get(name) for name in ("anthropic", "openai", "pydantic"))
    files = {module.__file__ for module in loaded if module is not None and module.__file__}
    folders = {Path(file).resolve().parents[1] for file in files}
    return (newest, *sorted(folder.stat().st_mtime for folder in folders))


def serve(where: str | Path) -> None:
    path = Path(where)
    try:
        _serve(path)
    finally:
        _starting(path).unlink(missing_ok=True)


def _serve(path: Path) -> None:
    from agentls.cli import ask  # noqa: F401  (everything an ask imports, loaded once)
    from agentls.conversation.open_sessions import preload_providers

    preload_providers()
    if threading.active_count() != 1:
        return  # a fork would copy a thread's half-held locks: no warm process
    stamp = code_stamp()
    idle = idle_seconds()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if (path.exists() and not path.is_socket()) or _listened(path):
            return  # not a socket, or another warm process started first
        path.unlink(missing_ok=True)  # a socket no process listens on
        old = os.umask(0o177)
        try:
            listener.bind(os.fspath(path))
        finally:
            os.umask(old)
        listener.listen(16)
        bound = path.stat().st_ino
    except OSError:
        return
    _starting(path).unlink(missing_ok=True)  # listening: the next ask connects
    signal.signal(signal.SIGCHLD, lambda number, frame: _reap())
    listener.settimeout(min(idle, 1.0))
    waited = 0.0
    with listener:
        while waited < idle:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                waited += listener.gettimeout() or 1.0
                continue
            with connection:
                if _peer_uid(connection) != os.getuid():
                    continue
                if code_stamp() != stamp:
                    with contextlib.suppress(OSError):
                        connection.sendall(b'{"refused": "agentls changed"}\n')
                    break
                if _fork_ask(connection):
                    waited = 0.0  # only an ask keeps it: not the doctor's probe
    with contextlib.suppress(OSError):
        if path.stat().st_ino == bound:
            path.unlink()  # ours, not a newer warm process's


def _listened(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(os.fspath(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _fork_ask(connection: socket.socket) -> bool:
    """Fork a child to run the ask the connection hands over; False when it hands none."""
    try:
        message, fds, _, _ = socket.recv_fds(connection, _MAX_HEADER, 3)
        request = json.loads(message)
    except (OSError, ValueError):
        return False
    if len(fds) != 3 or not isinstance(request, dict):
        for fd in fds:
            os.close(fd)
        return False
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return True
    # The ask's own exit handlers run as they would at its process's end (a search's
    # scratch folder, what a library registers), not the warm process's, which stay with it.
    atexit._clear()
    code = 1
    try:
        code = _run_child(request, fds, connection)
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
        with contextlib.suppress(OSError):
            connection.sendall(json.dumps({"exit": code}).encode() + b"\n")
        os._exit(code)


def _run_child(request: dict[str, object], fds: list[int], connection: socket.socket) -> int:
    global _serving
    _serving = True
    os.setsid()  # its own session, as the warm process: the person's signals come through
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    env = request.get("env")
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in (env if isinstance(env, dict) else {}).items()})
    umask = request.get("umask")
    os.umask(umask if isinstance(umask, int) else 0o022)
    os.chdir(str(request.get("cwd") or "/"))
    sys.stdin, sys.stdout, sys.stderr = _streams()
    argv = request.get("argv")
    args = [str(a) for a in argv] if isinstance(argv, list) else []
    sys.argv = ["agentls", *args]
    connection.sendall(json.dumps({"pid": os.getpid()}).encode() + b"\n")
    _end_with(connection)
    from agentls.cli.main import main

    try:
        return main(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


def _end_with(connection: socket.socket) -> None:
    """A command that ends first (killed, its terminal gone) ends the ask as a SIGHUP would."""

    def watch() -> None:
        with contextlib.suppress(OSError):
            while connection.recv(1024):
                pass
        os.kill(os.getpid(), signal.SIGHUP)

    threading.Thread(target=watch, name="warm-client", daemon=True).start()


def _streams() -> tuple[TextIO, TextIO, TextIO]:
    """Text streams on the person's descriptors, buffered as Python buffers its own."""
    stdin = open(0, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    out_buffering = 1 if os.isatty(1) else -1
    stdout = open(1, "w", encoding="utf-8", closefd=False, buffering=out_buffering)  # noqa: SIM115
    stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115
    return stdin, stdout, stderr
