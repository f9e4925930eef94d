"""The command line: `agentls` and its subcommands.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`agentls serve`, `ask`, `acp`, `doctor`, `sessions`, `show`, `undo`, `rewind`, `fork`,
`replay`, `trust`, `mcp list`: argument parsing (each subcommand imported only when it
runs), terminal approvals (`approve.py`: no "always" for a call no rule can cover; a
proposed plan answered d, a or k with a note; the answer read on the event loop, never
on a worker thread a cancelled run would wait for), streamed printing (`render.py`: the
answer on stdout, tool rows, the model's checklist and mode changes on stderr, thoughts
there only with `--show-thinking`; an answer the model never streamed, a plan no one
approved, printed at the end; what hooks tell the person on stderr, with `--json` too);
`ask`'s `--reasoning` is a settings flag, its `--image` files are read here and checked
by the conversation.

`history.py`: `sessions` (a fork's lineage after its line), `show`, `undo`, `replay`;
`rewind.py`: `rewind` and `fork`, one call each onto the conversation's.

`visible.py`: the one helper for printing text from the model or the workspace (control
characters as escapes; `json_visible` for `--json`).

`output.py`: `agentls ask`'s stdout and stderr written by one thread, in order, so a
full pipe never holds the event loop;

`ask.py`: a `/name args` prompt expanded from its command file before any session is
made (an unknown name exits 2, listing those there); SIGINT, SIGTERM and SIGHUP abort
the run (its end logged) and end the process within a bound.

`main.py`: the `agentls` parser and dispatch. `mcp_list.py`: `agentls mcp list`.
`memory.py`: `agentls memory add|list|forget`.

`trust.py`: `agentls trust` approves the workspace settings file and the command files
whose `allowed-tools` would add rules, each at the bytes shown.

`warm.py`: `agentls ask` served by a warm process (unless `AGENTLS_WARM=0`) that forks per
ask from the descriptors, arguments, folder, umask and environment handed over on its
socket (its own user only; anything amiss before the handover runs the ask here); its
`status` for the doctor (`doctor.py`: the report, plus the warm process).
"""
