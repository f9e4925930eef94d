"""What run_command (background), process_output and process_stop tell the model of a
background process: its new output, then one line with its state and what to do next."""

from __future__ import annotations

import re

from agentls.contracts.processes import ProcessRead
from agentls.contracts.tooling import ErrorCode, ToolError, ToolOutput

# A background start waits this long for the process's first output (or its exit).
FIRST_OUTPUT_SECONDS = 1.0
MAX_WAIT_SECONDS = 60.0  # process_output's longest wait


_ID = re.compile(r"\s*[pP]?([1-9][0-9]{0,5})\s*")


def process_id(given: str) -> str:
    """The id as the session names it (``p3``), from ``p3``, ``P3`` or ``3``."""
    found = _ID.fullmatch(given)
    if found is None:
        raise ToolError(
            ErrorCode.INVALID_INPUT, f"id: {given!r} is no process id; they read p1, p2, …"
        )
    return f"p{found.group(1)}"


def process_output_text(read: ProcessRead, *, first: bool = False) -> ToolOutput:
    info = read.process
    parts: list[str] = []
    if first:
        parts.append(f"{info.id} started in the background: {info.command}\n")
    if read.dropped:
        parts.append(
            f"[... {read.dropped:,} bytes of earlier output dropped: more came than is kept "
            "between two reads ...]\n"
        )
    output = read.output
    if output:
        parts.append(output if output.endswith("\n") else output + "\n")
    elif first:
        parts.append("(no output yet)\n" if info.state == "running" else "(no output)\n")
    else:
        parts.append("(no new output)\n")
    parts.append(_status(read))
    meta = {
        "processId": info.id,
        "state": info.state,
        "processExitCode": info.exit_code,
        "droppedBytes": read.dropped,
    }
    return ToolOutput("".join(parts), meta)


def _status(read: ProcessRead) -> str:
    info = read.process
    if info.state == "running":
        return (
            f'[{info.id} running; process_output {{"id": "{info.id}"}} reads what it writes '
            f'next, process_stop {{"id": "{info.id}"}} stops it]'
        )
    code = info.exit_code
    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    verb = "stopped" if info.state == "stopped" else "exited"
    return f"[{info.id} {verb}; {how}]"
