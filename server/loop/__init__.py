"""The query loop: one run's turns, its budget and compaction.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`QueryLoop`: prepare → infer → decide → act → observe → guard; the `Step` type;
`Budget`;

`compaction.py` (runs the summary call the projector asks for and logs it). On "prompt
is too long": one compaction, one retry.

The loop fires the settings' hooks of a run (the runtime's `settings_hooks`):
`UserPromptSubmit` before the prompt is kept (a block ends the run, the prompt never
kept; context follows the prompt), `Stop` when the model finished (a block is the
model's next message), `PreCompact` before a compaction; it waits for `Notification`
hooks before the run's end. `hooks.py`: agentls's own turn hooks (checkpoints,
problems after edits).
"""
