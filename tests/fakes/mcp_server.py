"""A real MCP server, written with the `mcp` SDK, for the test suite.

Run as `python tests/fakes/mcp_server.py [--http PORT] [--exit-at-start] [--hang-at-start]`;
stdio by default. Tools: `add` (read-only), `echo`, `pid` (read-only), `crash`
(the process exits in the middle of the call), `hang` (never answers), `big`
(about 1 MB of text), `noisy` (writes to stderr), `header` (an HTTP request
header, over HTTP).
With MCP_FAKE_MARKER set, every start appends a line to that file.

`stdio_config()` gives the `mcpServers` entry that starts it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

HERE = Path(__file__).resolve()
BIG_LINES = 20_000  # 20,000 lines of 50 characters: about 1 MB

app = MCPServer("agentls-test", instructions="A server for agentls's tests.")


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"the sum is {a + b}"


@app.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def pid() -> str:
    """This server's process id."""
    return str(os.getpid())


@app.tool()
def crash() -> str:
    """The server process dies in the middle of this call."""
    sys.stderr.write("fake MCP server: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@app.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.Event().wait()
    return "unreachable"


@app.tool()
def big() -> str:
    """About 1 MB of text."""
    lines = [f"line {i:06d} " + "x" * 38 for i in range(BIG_LINES)]
    return "\n".join(["BEGIN", *lines, "END"])


@app.tool()
def noisy(kilobytes: int) -> str:
    """Write this much to stderr, then say done."""
    line = "fake MCP server: chatter " + "." * 998 + "\n"
    for _ in range(kilobytes):
        sys.stderr.write(line)
    sys.stderr.write("fake MCP server: last words\n")
    sys.stderr.flush()
    return "done"


@app.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header (HTTP only)."""
    request: Any = ctx.request_context.request
    return str(request.headers.get(name, "(none)")) if request is not None else "(stdio)"


def stdio_config(*args: str, **settings: Any) -> dict[str, Any]:
    """The `mcpServers` entry that runs this server over stdio."""
    return {"command": sys.executable, "args": [str(HERE), *args], **settings}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--exit-at-start", action="store_true")
    parser.add_argument("--hang-at-start", action="store_true")
    options = parser.parse_args()
    marker = os.environ.get("MCP_FAKE_MARKER")
    if marker:
        with open(marker, "a", encoding="utf-8") as out:
            out.write(f"started {os.getpid()}\n")
    if options.exit_at_start:
        sys.exit("fake MCP server: cannot start (on purpose)")
    if options.hang_at_start:
        time.sleep(3600)
    if options.http:
        app.run("streamable-http", host="127.0.0.1", port=options.http)
    else:
        app.run()


if __name__ == "__main__":
    main()
