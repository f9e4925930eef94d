"""Server start to `initialize` result: agentls serve against a bare pygls server.

python -m tests.bench.bench_startup [--reps 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
INITIALIZE = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"capabilities": {}, "rootUri": HERE.as_uri()}}
).encode()  # fmt: skip


def time_to_initialize(command: list[str]) -> float:
    """Seconds from spawning the server to reading its initialize result."""
    started = time.perf_counter()
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(INITIALIZE), INITIALIZE))
    server.stdin.flush()
    length = 0
    while True:
        line = server.stdout.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    answer = json.loads(server.stdout.read(length))
    elapsed = time.perf_counter() - started
    server.kill()
    server.wait()
    assert answer.get("id") == 1 and "result" in answer, answer
    return elapsed


def measure(reps: int) -> dict[str, float]:
    agentls = [sys.executable, "-m", "agentls", "serve"]
    bare = [sys.executable, str(HERE / "bare_pygls_server.py")]
    time_to_initialize(agentls)  # warm the page cache once
    ours = statistics.median(time_to_initialize(agentls) for _ in range(reps))
    theirs = statistics.median(time_to_initialize(bare) for _ in range(reps))
    return {"agentls_ms": ours * 1000, "bare_pygls_ms": theirs * 1000}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=10)
    result = measure(parser.parse_args().reps)
    print("| server | start to initialize result (median) |")
    print("|---|---|")
    print(f"| agentls serve | {result['agentls_ms']:.0f} ms |")
    print(f"| bare pygls server | {result['bare_pygls_ms']:.0f} ms |")
    print(f"\nagentls / bare = {result['agentls_ms'] / result['bare_pygls_ms']:.2f}x; "
          "target: under 300 ms")  # fmt: skip


if __name__ == "__main__":
    main()
