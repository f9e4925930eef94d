"""Finding the processes a test started, by a marker in their command line, and telling
whether one still runs."""

from __future__ import annotations

import os
from pathlib import Path


def processes_with(marker: str) -> list[int]:
    """Pids whose command line holds ``marker`` (the test runner itself excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and "pytest" not in cmdline:
            found.append(int(entry.name))
    return found


def processes_naming(marker: str) -> list[int]:
    """Pids other than this test process's whose command line holds ``marker`` (which may
    be a path under pytest's temporary folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(entry.name))
    return found


def warm_processes(state: Path) -> list[int]:
    """The warm processes serving `agentls ask` from the state folder ``state`` (its socket,
    on their command line, is in it), and the children they forked."""
    marker = os.fsencode(state)
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"agentls.cli.warm" in cmdline and marker in cmdline:
                found.append(int(entry.name))
    return found


def process_alive(pid: int) -> bool:
    """Running; a zombie waiting to be reaped counts as gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")
