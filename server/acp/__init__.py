"""The Agent Client Protocol face (`agentls acp`): the only code that imports `acp`.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

The ACP face (`agentls acp`), the only code that imports the `acp` SDK.

`main.py` (`agentls acp`: the agent on stdio until the client closes it); `session.py`
(one ACP session: its conversation, ACP workspace, updates and run);

`transport.py` (newline-delimited JSON-RPC on a private stdout; malformed lines
answered)

`agent.py` (ACP requests as `ConversationManager`/`Conversation` calls; `session/fork`,
served with the SDK's unstable protocol on, a whole fork or, with `_meta.agentls.ask`,
one before an ask; a text prompt sent while a run works is `Conversation.steer`, queued
before the handler first waits, and answered when that run ends), `opening.py`,
`settings.py` (a session, its settings, the client's MCP servers), `observer.py` (a
hook's notice as a line of the agent's message),
`updates.py` (a run's callbacks as ordered session updates: the model's checklist as
`plan`, a mode a person's yes to a plan switched to as `current_mode_update` and
`config_option_update`)

`toolcalls.py` (kinds, titles, locations, content; a background process that exited or
was stopped, other than by the model, as a completed tool call of its own)

`workspace.py` (`AcpWorkspace`: `fs/*` when offered, edits shown as diffs and reviewed,
a call `in_progress` once its review lets it, commands in agentls's sandbox; versions
are content hashes, except for a file over 8 MiB, read from disk alone with the disk's
stat version)

`permission.py` (the four answers; a call no rule can cover is offered only the two
"once" answers, and an "always" to it counts once; "always" rules go to the
conversation, which logs them; a request the client answers with an error cancels the
prompt)

`approver.py` (each request's title, kind and locations; a read the gate asks about goes
as kind `other`; a proposed plan as kind `switch_mode` with the options `default`,
`accept-edits`, `keep-planning`)

`auth.py` (the typed `env_var` login), `prompt_blocks.py` (a prompt's text and its image
blocks, decoded), `history_updates.py` (a loaded session's images replayed too),
`commands.py` (the built-in slash commands, `/rewind` in `rewind_command.py`, `/memory` in
`memory_command.py`; then the prompt commands, sent again after a prompt when they
changed; a `/name` prompt is expanded by the core), `modes.py` (modes, and the config
options: mode, model, reasoning as `thought_level`), `stop_reasons.py`, `errors.py`;

`opening.py` refuses a `cwd` that is the home folder or `/` (`workspace/roots.py`'s
rule) and logs on stderr that a session has no working sandbox (the person reads it once
per session, with the first command's output). A tool call is `pending` from its start
until the runtime's `tool_running` (or an edit's review) and `in_progress` after.
"""
