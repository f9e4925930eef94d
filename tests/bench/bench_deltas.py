"""Model text deltas to `agentls/event` notifications at an LSP client: latency
(p50, p99) and deltas per second, through the real SDK and `agentls serve`.

A small paced SSE server stamps each text delta with the time it was sent;
the client reads the stamps out of the (coalesced) events it receives.

    python -m tests.bench.bench_deltas [--deltas 2000 --interval-ms 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

STAMP = re.compile(r"\[(\d+\.\d+)\]")


def sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def paced_server(deltas: int, interval: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            usage = {"input_tokens": 10, "output_tokens": 1}
            message = {
                "id": "msg_b",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            }
            self.wfile.write(sse("message_start", {"type": "message_start", "message": message}))
            start = {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
            self.wfile.write(sse("content_block_start", start))
            for _ in range(deltas):
                delta = {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": f"[{time.time():.6f}]"},
                }
                self.wfile.write(sse("content_block_delta", delta))
                self.wfile.flush()
                time.sleep(interval)  # the model's pace, not the measurement
            self.wfile.write(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
            done = {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": deltas},
            }
            self.wfile.write(sse("message_delta", done))
            self.wfile.write(sse("message_stop", {"type": "message_stop"}))
            self.wfile.flush()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def client(base_url: str, state: Path, root: Path) -> tuple[list[float], float]:
    """Latencies, and the seconds from the first delta sent to the last one received."""
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "bench",
        "ANTHROPIC_BASE_URL": base_url,
        "AGENTLS_STATE_DIR": str(state),
    }
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agentls",
        "serve",
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        frame = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        server.stdin.write(frame)  # type: ignore[union-attr]

    send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "capabilities": {},
                "rootUri": root.as_uri(),
                "initializationOptions": {"model": "anthropic:claude-sonnet-4-5"},
            },
        }
    )
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "workspace/executeCommand",
            "params": {"command": "agentls.ask", "arguments": [{"prompt": "stream"}]},
        }
    )
    latencies = []
    first_sent = last_received = 0.0
    while True:
        length = 0
        while (line := await server.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message = json.loads(await server.stdout.readexactly(length))
        received = time.time()
        if message.get("method") != "agentls/event":
            continue
        params = message["params"]
        if params["kind"] == "text":
            stamps = [float(s) for s in STAMP.findall(params["text"])]
            first_sent = first_sent or stamps[0]
            last_received = received
            latencies += [received - stamp for stamp in stamps]
        elif params["kind"] == "run_finished":
            break
    server.kill()
    await server.wait()
    return latencies, last_received - first_sent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deltas", type=int, default=2000)
    parser.add_argument("--interval-ms", type=float, default=1.0)
    args = parser.parse_args()
    http = paced_server(args.deltas, args.interval_ms / 1000)
    with tempfile.TemporaryDirectory() as tmp:
        latencies, streaming = asyncio.run(
            client(f"http://127.0.0.1:{http.server_address[1]}", Path(tmp) / "s", Path(tmp))
        )
    http.shutdown()
    assert len(latencies) == args.deltas, (len(latencies), args.deltas)
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[int(len(ordered) * 0.99) - 1] * 1000
    print(f"| {args.deltas} text deltas, one every {args.interval_ms:g} ms | value |")
    print("|---|---|")
    print(f"| latency p50 (model delta to editor event) | {p50:.1f} ms |")
    print(f"| latency p99 | {p99:.1f} ms |")
    print(f"| deltas per second delivered | {len(latencies) / streaming:,.0f} |")
    print("\nText is coalesced on purpose (one event per 50 ms or 4 KB), so p50 sits near 25 ms.")


if __name__ == "__main__":
    main()
