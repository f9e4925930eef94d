"""Hooks: the person's own commands run at a session's events (the `hooks` setting, in
Claude Code's shape, so hook scripts written for it work unchanged).

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`config.py`: the setting's wire form (`MatcherWire`, `CommandHookWire`; events
`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `Stop`, `SessionStart`, `SessionEnd`,
`PreCompact`, `Notification`), matchers, and `HookSet`, the hooks a session runs (the
settings' own unless `disableAllHooks`, and the managed settings', which nothing
removes).

`claude.py`: Claude Code's names for the tools and the permission modes, and its fields
in a hook's `tool_input` and `tool_response`.

`outcome.py`: `interpret`, what one hook run means by Claude Code's rules (exit codes,
JSON output); `HookResult`, how it ended, as the log keeps it.

`runner.py`: `LiveHooks`, hook commands run as approved commands run (minimal
environment, in the sandbox unless `"sandbox": false`, bounded by their timeout), with
their input on stdin.

`engine.py`: `HookEngine` (a session's hooks) and `RunHooks` (fired by the runtime, the
loop and the conversation: each run logged as a `hook_run` event, its failures and
messages told to the person through `RunObserver.hook_notice`); `RecordedHooks`, the
hooks of a recorded run for `agentls replay`.
"""
