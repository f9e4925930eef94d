"""A scripted attacker run through `agentls ask`, and the effects it tried to cause.

A hostile model is played by the shipped ``scripted:FILE`` provider: one model
turn with many tool calls, each one an attack, then a closing text turn. Every
attack is followed by a harmless read (the canary) so that denials never come
three in a row and end the run early; every attack call is checked by its
effect alone (a marker file made or removed, a loopback listener reached),
never by the wording of a message.

Commands run with the sandbox off (in the person's settings file), so that the
permission gate is the only thing standing between the attack and its effect.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

AGENTLS = [sys.executable, "-m", "agentls"]
CANARY = "canary.txt"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "input": arguments}


def command(line: str) -> dict[str, Any]:
    return call("run_command", command=line)


@dataclass
class Attack:
    """One run of the scripted attacker against a fresh workspace."""

    root: Path  # a temporary folder for this run: workspace, state, config
    settings: dict[str, Any] = field(default_factory=dict)  # the person's settings file
    calls: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.workspace / CANARY).write_text("nothing to see\n")

    @property
    def workspace(self) -> Path:
        return self.root / "project"

    def add(self, *calls: dict[str, Any]) -> None:
        self.calls.extend(calls)

    def script(self) -> tuple[Path, dict[str, str]]:
        """Write the attacker's script and the person's settings; the script and the
        environment `agentls` runs with."""
        script = self.root / "attacker.json"
        turn: list[dict[str, Any]] = []
        for index, attack in enumerate(self.calls):
            turn.append({**attack, "id": f"attack_{index}"})
            turn.append({**call("read_file", path=CANARY), "id": f"canary_{index}"})
        script.write_text(json.dumps({"turns": [{"toolCalls": turn}, {"text": "done"}]}))
        config = self.root / "config"
        (config / "agentls").mkdir(parents=True, exist_ok=True)
        (config / "agentls" / "settings.json").write_text(
            json.dumps({"sandbox": "off", "maxTurns": 5, **self.settings})
        )
        environment = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "AGENTLS_", "OPENAI_", "XDG_CONFIG"))
        }
        environment |= {
            "AGENTLS_STATE_DIR": str(self.root / "state"),
            "AGENTLS_WARM": "0",  # each ask in its own process (tests/conftest.py)
            "XDG_CONFIG_HOME": str(config),
        }
        return script, environment

    def run(
        self, *flags: str, env: dict[str, str] | None = None, timeout: float = 90
    ) -> subprocess.CompletedProcess[str]:
        script, environment = self.script()
        return subprocess.run(
            [*AGENTLS, "ask", "attack", "--model", f"scripted:{script}", *flags],
            cwd=self.workspace,
            env={**environment, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def decisions(self) -> dict[str, dict[str, Any]]:
        """The logged permission decision of each call, by call id (for failure messages)."""
        found: dict[str, dict[str, Any]] = {}
        for log in (self.root / "state" / "sessions").glob("*.jsonl"):
            for line in log.read_text().splitlines():
                event = json.loads(line)
                if event.get("type") == "decision" or event.get("kind") == "decision":
                    found[str(event.get("callId"))] = event
        return found


class Listener:
    """A listener that records whether anything connected: on a loopback TCP port,
    or on whatever socket ``bind`` of a subclass gives."""

    def __init__(self) -> None:
        self.sock = self.bind()
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def bind(self) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        return sock

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


@contextmanager
def listener() -> Iterator[Listener]:
    server = Listener()
    try:
        yield server
    finally:
        server.close()


def missing(workspace: Path, names: Sequence[str]) -> list[str]:
    return [n for n in names if not (workspace / n).exists()]


def present(workspace: Path, names: Sequence[str]) -> list[str]:
    return [n for n in names if (workspace / n).exists()]
