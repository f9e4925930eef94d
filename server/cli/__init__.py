"""The command line: `agentls` and its subcommands.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`agentls serve`, `ask`, `acp`, `doctor`, `sessions`, `show`, `undo`, `replay`, `trust`,
`mcp list`: argument parsing (each subcommand imported only when it runs), terminal
approvals (`approve.py`: no "always" for a call no rule can cover; the answer read on
the event loop, never on a worker thread a cancelled run would wait for), streamed
printing (`render.py`; what hooks tell the person on stderr, with `--json` too).

`visible.py`: the one helper for printing text from the model or the workspace (control
characters as escapes; `json_visible` for `--json`).

`output.py`: `agentls ask`'s stdout and stderr written by one thread, in order, so a
full pipe never holds the event loop;

`ask.py`: SIGINT, SIGTERM and SIGHUP abort the run (its end logged) and end the process
within a bound.

`warm.py`: `agentls ask` served by a warm process (unless `AGENTLS_WARM=0`) that forks per
ask from the descriptors, arguments, folder, umask and environment handed over on its
socket (its own user only; anything amiss before the handover runs the ask here); its
`status` for the doctor (`doctor.py`: the report, plus the warm process).
"""
