"""The conversation: the core every face calls (sessions, runs, settings, undo, replay).

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`open_sessions.py`: `ConversationManager`, the open sessions of a process (`shutdown`
with a grace, `undo` of an open or a stored session, settings loads). `one_session.py`:
`Conversation`, one session (the opened session an `OpenedSession`, the parts sessions
share `SharedParts`; the model's facts, the session's cost):
sessions (new or resumed from the log: in the mode of its last `mode_changed` unless a
mode is named at opening, which is logged, with
its `session_rules` and the notices it was given; the same when another process wrote to
it), settings, budgets, one run at a time per session across processes, cancellation,
`steer` (the person's words for the running run, in its `SteeringQueue`; what the run
never reached is dropped when it ends), the plan agreed in plan mode pinned (one a
person approved, or a run that ends in plan mode with an answer), `compact` (ACP's
`/compact`, after its PreCompact hooks), the session's hooks (SessionStart with its
first run here, `end_session`'s SessionEnd when the manager shuts down).

`run_builder.py`: the one composition root (`RunConfig`: mode, system prompt (again for
a mode a run switches to), output limit, price, budget, from the settings, model and
mode; `build_run` makes the `ToolRuntime` and `QueryLoop` from `RunParts` (a live run's
log and observer also feed its telemetry when enabled, a replay's never; the settings'
hooks bound to the run's log and observer: `RunParts.hook_engine`, live from
`make_hook_engine` or played back by a replay; a live run's steering queue, or a
replay's recording); `Run.start_session` fires SessionStart; `build_session` the
policy, tool context with intelligence, projector, checkpoints and problems hook;
`run_tools` adds MCP tools).

`mcp_listing.py`: `agentls mcp list`'s reports. `ConversationManager.open_async` opens a
session with its settings files, provider and log made or read on a thread;
`Conversation.start` and `claimed` take the session's lock and, when another process
wrote to the session (one `fstat` tells), read its log again on a thread.

`session_processes.py`: `SessionProcesses`, a session's background processes as the
conversation keeps them: each start, exit and stop logged (between runs with the lock
taken for it, or kept for the next run while another process holds the session) and told
to the faces watching (`Conversation.watch_processes`), stopped by a person
(`stop_process`), at the session's end (`end_processes`) or before an undo of the ask
that started them; ids going on from those the log used.

`run_ends.py`: runs that did not end in their loop (one a crash left open, closed when
its session is next taken; one cancelled before its first turn).

`settings_wire.py`: the flat keys people write (a public contract; `hooks` and
`disableAllHooks` among them).

`settings.py`: the nested `Settings`, built once per distinct settings text (the same
settings loaded again are the same `Settings`), rules parsed at load; what depends on
the settings alone (the logged form: every string masked as tool output is, `sandboxEnv`
values hidden; the context policy per model, the budget, the `HookSet`) is worked out
once per `Settings`, and the system prompt once per workspace, mode and day; hooks add
up across layers (`merge_hooks`).

`settings_layers.py`: `layer_settings`, the one layering every face uses (defaults <
user file < workspace file, only harmless keys until approved < face layers < flags <
the managed policy; `untrusted_part`).

`settings_managed.py`: the machine's managed settings (`/etc/agentls/managed-
settings.json` or `AGENTLS_MANAGED_SETTINGS`), laid over every layer and only tightening
(rules added, bypass mode off, the sandbox required, ceilings, allowed models, providers
and MCP servers, telemetry keys pinned, hooks that always run: `Settings.hooks`); what
it overrode kept on `Settings.managed` for every face's notice and the doctor; a file
that does not load raises ConfigError.

`settings_files.py`: the settings files as layers (the managed file read at each load),
and trust.

`doctor.py`: the report behind `agentls doctor` and `agentls.doctor` (every string in it
masked as tool output is); `doctor_hooks.py`, its `hooks` part: each configured hook by
event and settings layer, whether a session here runs it and why not, and the entries
that do not load (it runs none).

`checkpointing.py` (snapshots around each turn that may change files: a turn of reads
takes none (nor a problems baseline or check, unless a tool took one), an edit turn
looks only where it wrote and where the watcher saw changes, a command turn rescans;
closes a crashed turn's checkpoint, reading the log's checkpoints on a thread once per
resumed session and again only after another process wrote to it)

`outside_changes.py` (watchfiles on one thread per workspace folder, shared by its
sessions: notes for the model about files changed since it read them)

`undo.py` (`agentls undo`, `agentls.undo` and ACP's `/undo`: undo last ask, or `--turn
N`; one `describe()` for every face, paths refused beyond a link out named)

`rewind.py` (`agentls rewind`, `agentls.rewind`, ACP's `/rewind`: a session back to
before ask N, its conversation (a `rewound` event), its files (every turn since,
through the undo's plan, a file changed since kept and named) or both; a dry run;
`RewindResult.describe()` for every face; `Conversation.rewind` adopts the history the
log then folds to, with a new projector)

`forking.py` (`agentls fork`, `agentls.fork`, ACP's `session/fork`: `fork_stored`, a new
session with another's history before an ask or whole, a whole one under the lock)

`run_replay.py` (`agentls replay`: each recorded run rebuilt by `run_builder` with the live
run's configuration, run through the real loop and runtime on the recorded model output
and usage, answers, tool results (MCP tools included, rebuilt by
`mcp/tools.recorded_definition`), turn-hook notes and settings hooks' runs
(`hooks.engine.RecordedHooks`: no hook runs); decisions compared).

`guidance.py`: `load_guidance`, the instruction files and memories for one ask, read on a
worker thread in `Conversation.start(folder=)`, appended to the system prompt through
`RunConfig.of(guidance=)` and logged as `guidance`; `Guidance.lines()` is what every
face says of them.

`memory_ops.py`: `memory_action` (list, add, forget), the one operation behind
`agentls memory`, `agentls.memory` and ACP's `/memory`.

`remembering.py`: `SessionMemory` (`ToolContext.memory`): a `remember` proposal a person
said yes to, kept with its source worked out from the session's log.

`system_prompt.py`: the system prompt, once per workspace, mode and day.

`prompt_context.py`: the prompt plus what the person points at (the document, a
selection's lines), for the language server and ACP alike.

`command_files.py`: prompt commands for the faces (`load_commands`: the workspace's and
the person's, trust from `SettingsFiles.approved`, only tools a rule may allow;
`command_listing`, the doctor's section and `agentls.commands`' answer; `use_event`);
`ConversationManager.prompt` expands a `/name args` prompt before any session is made,
and `Conversation.start(command=)` logs the file and adds its rules for the session.

`reasoning.py`: `resolve_reasoning`, the `reasoning` setting worked out for a model from
the model table (what each request sends, the raised output limit; ConfigError for a
level it cannot take); `Conversation.set_reasoning` is ACP's `thought_level` option.

`prompt_images.py`: `PromptImage` (what a face was given), `check_images` (the model
table and the provider's `ImageLimits`; `ImageRefused` before anything is sent) and
`kept_images` (stored in the session's folder, the prompt's `ImageBlock`s);
`image_format.py` reads an image's format, pixels and frames from its bytes.
"""
