"""Helpers of the sandbox, secrets and settings-trust cases: listeners on Unix
sockets, and where a value could have leaked to after a run."""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

from tests.gate.harness import Attack, Listener


class UnixListener(Listener):
    """A Unix-socket listener (a path, or an abstract name starting with NUL) counting
    who connects."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def bind(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(self.address)
        return sock

    def close(self) -> None:
        super().close()
        if not self.address.startswith("\0"):
            with contextlib.suppress(OSError):
                os.unlink(self.address)


def everything_written(attack: Attack, proc_out: str) -> str:
    """All a run left behind: its output, the session logs and every workspace file."""
    texts = [proc_out]
    for folder in (attack.root / "state", attack.workspace):
        for path in folder.rglob("*"):
            if path.is_file() and ".git" not in path.parts:
                texts.append(path.read_text(errors="replace"))
    return "\n".join(texts)


def unix_connect(address: str, marker: str) -> str:
    """A command that creates ``marker`` only when it reached ``address``."""
    target = repr(address)
    return (
        'python3 -c "import socket; s = socket.socket(socket.AF_UNIX); '
        f's.connect({target})" && touch {marker}'
    )


def tcp_connect(port: int, marker: str) -> str:
    return (
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', "
        f'{port}), 3)" && touch {marker}'
    )


def state_logs(attack: Attack) -> str:
    return "\n".join(p.read_text() for p in (attack.root / "state").rglob("*.jsonl"))


def home() -> Path:
    return Path(os.path.expanduser("~"))
