"""The language-server face: LSP turned into `Conversation.start` calls, and a run's
callbacks into LSP messages (with `intelligence/`, the only code that imports pygls
and lsprotocol).

- `main.py`: `agentls serve` over stdio or TCP; builds the server and registers
  every handler.
- `server.py`: `AgentServer`: roots, sessions and their runs, settings (refreshes one
  at a time; a request sent after a change waits for it). Only handler registration
  imports it; the rest take the editor through `editor/protocols.py`.
- `lifecycle.py`: initialize, settings at `initialized` and on change, document
  tracking, shutdown. The core loads after `initialize` is answered (imports on a
  thread).
- `editor_settings.py`: what the editor sends, as settings layers (VS Code's
  `workspaceScoped` values an untrusted layer), and the notes about them.
- `chosen_mode.py`: a mode picked with `agentls.setMode` outlives refreshes until the
  `mode` setting changes.
- `code_actions.py`: asks offered only when they make sense (a selection for "about
  this selection", none while a question waits).
- `run_events.py`: `LspRunObserver`, a run as `agentls/event` (from `run_started` with
  the request; text and thoughts coalesced apart; the model's `plan`, a `plan_proposed`,
  a `mode_changed`, a `steered`; a hook's notice as kind `hook` and a message), progress,
  a last message cut at a word.
  the request; a hook's notice as kind `hook` and a message), progress, a last message
  cut at a word.
- `process_events.py`: a session's background processes as `agentls/event` of kind
  `process` (started, exited, stopped), also between runs.
- `ask_guidance.py`: the folder an ask is about, and the instruction files and memories
  it was given, said in the run's first progress message.

Subpackages:

- `wire/`: reading frames that survive a broken client, the protocol's tweaks, logs
  to the client, shielded and bounded server→client requests.
- `editor/`: the connected editor: its Protocols (one per caller), `LspEditorClient`,
  routes, and the editor's own language intelligence.
- `asking/`: asking the person: one path for approvals and reviews.
- `questions/`: questions waiting as code actions and an Information diagnostic.
- `files/`: `LspWorkspace` and the steps of an edit: buffers first, edits as
  `workspace/applyEdit`, accepted edits on disk before the next tool.
- `commands/`: the `agentls.*` commands, one module each.
"""
