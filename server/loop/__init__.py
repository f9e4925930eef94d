"""The query loop: one run's turns, its budget and compaction.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`query_loop.py`: `QueryLoop`: prepare → infer → decide → act → observe → guard;
`steps.py`: the `Step` type; `budget.py`: `Budget` (turns, tokens, cost, wall time);

`compaction.py` (runs the summary call the projector asks for and logs it). On "prompt
is too long": one compaction, one retry.

`steering.py`: what the person says while a run works (`SteeringQueue`, one per run),
taken at each turn boundary and given to the model as their words (`steered` events).

The loop fires the settings' hooks of a run (the runtime's `settings_hooks`):
`UserPromptSubmit` before the prompt is kept (a block ends the run, the prompt never
kept; context follows the prompt), `Stop` when the model finished (a block is the
model's next message), `PreCompact` before a compaction; it waits for `Notification`
hooks before the run's end. `hooks.py`: agentls's own turn hooks (checkpoints,
problems after edits).
"""
