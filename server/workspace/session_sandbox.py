"""One sandbox per session: the namespaces every command of a session joins.

A small holder process runs under bubblewrap with the session's layout
(`sandbox.session_layout`): the system and tool folders read-only, the workspace and
the extra writable folders, a private /tmp and /run, its own user, mount, PID, IPC,
UTS and (unless the network is allowed) network namespace, where only loopback is up.
Each command then joins those namespaces with `nsenter` and runs in a bwrap of its own
(`sandbox.command_layout`): it sees what the holder shows with a HOME of its own, and
every control file that exists when it starts is bound read-only again (unless a person
approved that run to write them; that run gets a /tmp of its own too), exactly as a
command's own sandbox binds them. So a server one command started is reached by the
next over loopback, and a file one wrote to /tmp is read by the next, while no other
session and nothing of the host is.

Nothing of agentls runs inside: the holder is the shell reading its stdin, which
agentls holds open. It dies with agentls (`--die-with-parent`), even killed with -9,
and its PID namespace with it: every command of the session, started as a member of
that namespace, dies with it.

The holder is a `supervision` child: started on a session's first command, started
again once after a crash, then given up on; a session whose holder cannot run has each
command in a sandbox of its own (`prefix` gives None, and says why in `problem`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from agentls.contracts.waiting import within
from agentls.supervision import ChildFailed, Lifecycle
from agentls.workspace import process, sandbox
from agentls.workspace.control import helper_path
from agentls.workspace.sandbox import SandboxSettings

log = logging.getLogger(__name__)

START_SECONDS = 10.0  # for the holder to be ready
HALT_SECONDS = 5.0  # for the holder to go once its stdin is closed
# A command joins the holder's namespaces, then runs in its own bwrap: nsenter (which
# forks to enter the PID namespace), bwrap, and bwrap's init come before the shell.
LAUNCHERS = 3


@dataclass(frozen=True, slots=True)
class SandboxShape:
    """What the session's sandbox depends on: a change needs a new one."""

    root: Path
    network: bool
    writable: tuple[str, ...]
    search_path: str  # the PATH commands get: its tool folders are shown


@dataclass(frozen=True, slots=True)
class _Launchers:
    nsenter: str
    bwrap: str

    def join(self, target: int, layout: list[str]) -> list[str]:
        """The argv that runs a command (after it) in the holder ``target``'s namespaces,
        in a bwrap of its own with ``layout``."""
        return [
            self.nsenter, f"--target={target}", "--user", "--mount", "--net", "--ipc",
            "--uts", "--pid", "--preserve-credentials", "--", self.bwrap, *layout, "--",
        ]  # fmt: skip


class _Holder:
    """The holder as a `supervision.Child`."""

    def __init__(
        self, shape: SandboxShape, settings: SandboxSettings, launchers: _Launchers
    ) -> None:
        self.shape = shape
        self.settings = settings
        self.launchers = launchers
        self.target: int | None = None  # the holder's first process inside, on the host
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    async def launch(self) -> None:
        await self.halt()
        proc, target = await asyncio.to_thread(self._start)
        self._proc, self.target = proc, target

    def _start(self) -> tuple[subprocess.Popen[bytes], int]:
        bwrap = self.launchers.bwrap
        shell = process.shell_of(helper_path(self.shape.root))
        layout = sandbox.session_layout(self.shape.root, self.settings, self.shape.search_path)
        info_read, info_write = os.pipe()
        try:
            argv = [bwrap, *layout, "--info-fd", str(info_write), "--", shell, "-c",
                    "echo ready; read -r _"]  # fmt: skip
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(info_write,), start_new_session=True, env={"PATH": os.defpath},
            )  # fmt: skip
        except OSError as exc:
            os.close(info_read)
            raise ChildFailed(f"bwrap does not start: {exc}") from None
        finally:
            os.close(info_write)
        too_long = threading.Timer(START_SECONDS, _kill, (proc,))  # a bwrap that hangs
        too_long.start()
        try:
            target = _ready(proc, info_read)
            self._probe(target, shell)
            return proc, target
        except BaseException:
            _kill(proc)
            raise
        finally:
            too_long.cancel()
            os.close(info_read)

    def _probe(self, target: int, shell: str) -> None:
        """One empty command joins it, as every command will (a kernel may refuse to let a
        process enter its namespaces): ChildFailed, with bwrap's or nsenter's words, if not."""
        layout = ["--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
                  "--die-with-parent", "--chdir", str(self.shape.root)]  # fmt: skip
        argv = [*self.launchers.join(target, layout), shell, "-c", ":"]
        try:
            done = subprocess.run(
                argv, capture_output=True, timeout=START_SECONDS, env={"PATH": os.defpath},
                check=False, start_new_session=True,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ChildFailed(f"no command can join the session's sandbox ({exc})") from None
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip().splitlines()
            raise ChildFailed(
                f"no command can join the session's sandbox ({why[-1] if why else done.returncode})"
            )

    async def halt(self) -> None:
        proc, self._proc, self.target = self._proc, None, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()  # the holder's shell reads its end and exits
        try:
            await within(asyncio.to_thread(proc.wait), HALT_SECONDS)
        except TimeoutError:
            await asyncio.to_thread(_kill, proc)
        else:  # bwrap has gone; the kernel may still be ending its namespace's processes
            await asyncio.to_thread(_until_gone, proc)

    def kill(self) -> None:
        proc, self._proc, self.target = self._proc, None, None
        if proc is not None:
            _kill(proc)

    def gave_up(self, when: str) -> str:
        return f"the session's sandbox ended {when}, twice"


def _ready(proc: subprocess.Popen[bytes], info_read: int) -> int:
    """The holder's first process (from bwrap's info), once its shell runs inside."""
    assert proc.stdout is not None and proc.stderr is not None
    info = b""
    while chunk := os.read(info_read, 4096):  # bwrap closes it once it has written
        info += chunk
    line = proc.stdout.readline()  # the shell's "ready": the sandbox is made
    if line != b"ready\n":
        _kill(proc)
        why = proc.stderr.read().decode(errors="replace").strip().splitlines()
        raise ChildFailed(f"the session's sandbox did not start ({why[-1] if why else 'no word'})")
    try:
        return int(json.loads(info)["child-pid"])
    except (ValueError, KeyError, TypeError):
        _kill(proc)
        raise ChildFailed("bwrap did not say which process the sandbox is") from None


def _kill_all(holders: list[_Holder]) -> None:
    for holder in holders:
        holder.kill()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the holder's group, and wait (bounded) until none of it runs."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=HALT_SECONDS)
    _until_gone(proc)


def _until_gone(proc: subprocess.Popen[bytes]) -> None:
    """Wait (bounded) until no process of the holder's group runs."""
    deadline = time.monotonic() + HALT_SECONDS
    while process.group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)  # the kernel ends the rest of the group


class SessionSandbox:
    """A session's sandbox: the holder for the current shape, started on first need."""

    def __init__(self) -> None:
        self._current: tuple[SandboxShape, Lifecycle, _Holder] | None = None
        self._earlier: list[Lifecycle] = []  # left for background processes in them
        self.problem: str | None = None  # why commands run in a sandbox of their own
        # A session dropped without being closed takes its sandbox with it.
        self._holders: list[_Holder] = []
        weakref.finalize(self, _kill_all, self._holders)

    async def prefix(
        self, root: Path, settings: SandboxSettings, search_path: str, *, control_writable: bool
    ) -> list[str] | None:
        """The argv that runs a command in the session's sandbox (``LAUNCHERS`` deep), or
        None where that sandbox cannot run (``problem`` says why)."""
        # Looked up along PATH on the disk: off the event loop.
        nsenter, bwrap = await asyncio.to_thread(
            lambda: (sandbox.launcher("nsenter", root), sandbox.launcher("bwrap", root))
        )
        if nsenter is None or bwrap is None:
            self.problem = "nsenter (util-linux) is not on PATH"
            return None
        shape = SandboxShape(root, settings.network, settings.writable, search_path)
        lifecycle, holder = self._for(shape, settings, _Launchers(nsenter, bwrap))
        try:
            await lifecycle.ensure()
        except ChildFailed as exc:
            self.problem = str(exc)
            log.warning("commands run in a sandbox each: %s", exc)
            return None
        target = holder.target
        if target is None:
            return None
        layout = await asyncio.to_thread(
            sandbox.command_layout, root, settings, search_path, control_writable=control_writable
        )
        self.problem = None
        return holder.launchers.join(target, layout)

    def _for(
        self, shape: SandboxShape, settings: SandboxSettings, launchers: _Launchers
    ) -> tuple[Lifecycle, _Holder]:
        current = self._current
        if current is not None and current[0] == shape:
            current[2].settings = settings
            return current[1], current[2]
        if current is not None:
            self._earlier.append(current[1])
        holder = _Holder(shape, settings, launchers)
        self._holders.append(holder)
        lifecycle = Lifecycle(holder)
        self._current = (shape, lifecycle, holder)
        return lifecycle, holder

    async def retire_earlier(self) -> None:
        """Stop the sandboxes a change of shape left (no background process is in them)."""
        earlier, self._earlier = self._earlier, []
        await asyncio.gather(*(e.stop() for e in earlier), return_exceptions=True)

    async def aclose(self) -> None:
        """Stop the session's sandbox (and whatever still runs in it)."""
        await self.retire_earlier()
        current, self._current = self._current, None
        if current is not None:
            await current[1].stop()

    def kill(self) -> None:
        """End it at once, without an event loop."""
        for lifecycle in self._earlier:
            lifecycle.kill()
        self._earlier = []
        current, self._current = self._current, None
        if current is not None:
            current[1].kill()
