"""Running `agentls` at a real terminal (a pty on stdin), reading its stdout and stderr
as it goes, byte for byte."""

from __future__ import annotations

import os
import pty
import subprocess
import threading
from pathlib import Path
from types import TracebackType
from typing import IO

from tests.e2e.conftest import AGENTLS


class TerminalRun:
    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self._controller, terminal = pty.openpty()
        self.proc = subprocess.Popen(
            [*AGENTLS, *args], cwd=cwd, env=env, stdin=terminal,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        os.close(terminal)
        self._read = {"stdout": b"", "stderr": b""}
        self._lock = threading.Lock()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._pumps = [
            threading.Thread(target=self._pump, args=(name, stream), daemon=True)
            for name, stream in (("stdout", self.proc.stdout), ("stderr", self.proc.stderr))
        ]
        for pump in self._pumps:
            pump.start()

    def _pump(self, name: str, stream: IO[bytes]) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
            with self._lock:
                self._read[name] += chunk

    def count(self, needle: str) -> int:
        with self._lock:
            return self._read["stderr"].decode(errors="replace").count(needle)

    def output(self, name: str = "stderr") -> bytes:
        """All the bytes read from stdout or stderr so far (all of them, once it ended)."""
        if self.proc.poll() is not None:
            for pump in self._pumps:
                pump.join(timeout=30)
        with self._lock:
            return self._read[name]

    def type(self, text: str) -> None:
        os.write(self._controller, text.encode())

    def wait(self, timeout: float = 30) -> int:
        return self.proc.wait(timeout=timeout)

    def __enter__(self) -> TerminalRun:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self._controller)
