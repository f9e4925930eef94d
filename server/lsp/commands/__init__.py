"""The `agentls.*` commands (docs/protocol.md), one module each, as pygls's examples do.

Arguments and results are the models of `agentls.protocol.commands`, imported in
the handlers: they load after `initialize`, with the first command.

- `registration.py`: every command module, registered on the server.
- `arguments.py`: a command's one object argument as its model, or InvalidParams
  naming the field (no argument, `{}` and Emacs's `null` alike).
- `ask.py`: `agentls.ask`: a run, with the file and selection it was asked about.
- `cancel.py`: `agentls.cancel`: a session's run, or every run.
- `steer.py`: `agentls.steer`: the person's words for a running run, given to the model
  at its next turn boundary.
- `sessions.py`: `agentls.sessions`: the workspace folders' sessions.
- `show_transcript.py`: `agentls.showTranscript`: a session's transcript, shown.
- `set_mode.py`: `agentls.setMode`: an open session's mode, or the next sessions'.
- `answer.py`: `agentls.answer`: the person answers a waiting question.
- `show_diff.py`: `agentls.showDiff`: a waiting review's diff, opened.
- `undo.py`: `agentls.undo`: undo the last ask, or one turn.
- `rewind.py`: `agentls.asks` (a session's asks, numbered as `agentls show` prints them),
  `agentls.rewind` (to before one of them: the conversation, the files, or both; a dry run
  says what it would do) and `agentls.fork` (a new session branched before one of them).
- `mcp.py`: `agentls.mcp`: the MCP servers, their status and tools.
- `doctor.py`: `agentls.doctor`: the report of `agentls doctor --json`.
- `memory.py`: `agentls.memory`: list, add or forget what the agent remembers (one call
  onto `conversation/memory_ops.py`).
- `prompt_commands.py`: `agentls.commands`: the prompt commands of a folder, for the
  editors' lists and completion (`ConversationManager.prompt_commands`).
- `processes.py`: `agentls.processes`: the open sessions' background processes, one
  stopped first when asked.
"""
