"""`agentls serve` beside the Copilot language server: time to answer `initialize`, and
the RSS of the server's process tree once it has."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests.bench.peers.measure import tree_rss


def _initialize(root: Path) -> bytes:
    message = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {},
            # The Copilot server wants to know the editor; agentls ignores these.
            "initializationOptions": {
                "editorInfo": {"name": "bench", "version": "1.0"},
                "editorPluginInfo": {"name": "bench", "version": "1.0"},
            },
        },
    }).encode()  # fmt: skip
    return b"Content-Length: %d\r\n\r\n%s" % (len(message), message)


def initialize(command: list[str], root: Path, env: dict[str, str]) -> tuple[float, float]:
    """(seconds to the initialize result, MiB of the tree's RSS then)."""
    started = time.perf_counter()
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=env, cwd=root,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(_initialize(root))
        server.stdin.flush()
        while True:
            length = 0
            while True:
                line = server.stdout.readline()
                if not line:
                    raise RuntimeError(f"{command[0]} closed its output before answering")
                if line == b"\r\n":
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            answer = json.loads(server.stdout.read(length))
            if answer.get("id") == 1:  # server-to-client requests and notices may come first
                break
        elapsed = time.perf_counter() - started
        if "result" not in answer:
            raise RuntimeError(f"{command[0]} refused initialize: {answer}")
        return elapsed, tree_rss(server.pid) / 2**20
    finally:
        server.kill()
        server.wait()
