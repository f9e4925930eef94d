"""Start-up: `agentls serve` to its `initialize` result against a bare pygls server, and
the command line (`agentls --version`, a one-turn `agentls ask`) against `python -c pass`.

Every command runs with its bytecode cached (in a private PYTHONPYCACHEPREFIX, filled by
a warm-up run), as an installed package has it: pip compiles a wheel's modules when it
installs them, while a development tree with PYTHONDONTWRITEBYTECODE set would compile
agentls's sources on every start and the bare server's installed libraries never.

python -m tests.bench.bench_startup [--reps 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench import summary

HERE = Path(__file__).resolve().parent
INITIALIZE = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"capabilities": {}, "rootUri": HERE.as_uri()}}
).encode()  # fmt: skip


def cached_bytecode_env(pycache: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_to_initialize(command: list[str], env: dict[str, str]) -> float:
    """Seconds from spawning the server to reading its initialize result."""
    started = time.perf_counter()
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=env,
    )  # fmt: skip
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


def time_to_exit(command: list[str], cwd: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def measure(reps: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return measure_in(Path(tmp), reps)


def measure_in(tmp: Path, reps: int) -> dict[str, float]:
    env = cached_bytecode_env(str(tmp / "pycache"))
    agentls = [sys.executable, "-m", "agentls", "serve"]
    bare = [sys.executable, str(HERE / "bare_pygls_server.py")]
    for server in (agentls, bare):
        time_to_initialize(server, env)  # compile to the cache, warm the page cache
    # Interleaved, so both see the same moments of a busy machine.
    ours, theirs = [], []
    for _ in range(reps):
        ours.append(time_to_initialize(agentls, env))
        theirs.append(time_to_initialize(bare, env))
    result = {"agentls_ms": statistics.median(ours) * 1000,
              "bare_pygls_ms": statistics.median(theirs) * 1000}  # fmt: skip
    script = tmp / "one.json"
    script.write_text(json.dumps({"turns": [{"text": "ok"}]}))
    env["AGENTLS_STATE_DIR"] = str(tmp / "state")
    env["AGENTLS_WARM"] = "0"  # the command's own start-up, not a warm process's
    commands = {
        "python_pass_ms": [sys.executable, "-c", "pass"],
        "version_ms": [sys.executable, "-m", "agentls", "--version"],
        "ask_ms": [sys.executable, "-m", "agentls", "ask", "hi", "--workspace", str(tmp),
                   "--model", f"scripted:{script}"],
    }  # fmt: skip
    for command in commands.values():
        time_to_exit(command, str(tmp), env)  # compile to the cache
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(reps):
        for name, command in commands.items():
            times[name].append(time_to_exit(command, str(tmp), env))
    result.update({name: statistics.median(t) * 1000 for name, t in times.items()})
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=10)
    result = measure(parser.parse_args().reps)
    summary.record("startup", **result)
    bare, python = result["bare_pygls_ms"], result["python_pass_ms"]
    print("| start | median | ratio |")
    print("|---|---|---|")
    print(f"| `agentls serve` to its `initialize` result | {result['agentls_ms']:.0f} ms "
          f"| {result['agentls_ms'] / bare:.2f}x the bare server |")  # fmt: skip
    print(f"| a bare pygls server to its `initialize` result | {bare:.0f} ms | 1.00x |")
    print(f"| `agentls --version` | {result['version_ms']:.0f} ms "
          f"| {result['version_ms'] / python:.2f}x `python -c pass` |")  # fmt: skip
    print(f"| `agentls ask` (one scripted turn, `AGENTLS_WARM=0`) to exit "
          f"| {result['ask_ms']:.0f} ms "
          f"| {result['ask_ms'] / python:.2f}x `python -c pass` |")  # fmt: skip
    print(f"| `python -c pass` | {python:.0f} ms | 1.00x |")
    print("\nTarget: `initialize` answered within 1.15x the bare pygls server.")


if __name__ == "__main__":
    main()
