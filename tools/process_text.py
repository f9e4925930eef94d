"""What run_command (background), process_output and process_stop tell the model of a
background process: its new output, then one line with its state and what to do next."""

from __future__ import annotations

from agentls.contracts.processes import ProcessRead
from agentls.contracts.tooling import ToolOutput

# A background start waits this long for the process's first output (or its exit).
FIRST_OUTPUT_SECONDS = 1.0
MAX_WAIT_SECONDS = 60.0  # process_output's longest wait


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
