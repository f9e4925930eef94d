"""The tool runtime: the registry and the ordered pipeline of one tool call.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`registry.py`: tools by name, visible specs per mode. `pipeline.py`: `ToolRuntime`, the
ordered pipeline for one call (an allowed command gets its `CommandGrant`: the line as
a person saw it, or the gate's rendering when rules or `--yes` allowed it; the decision logs `runs`;
a proposed plan is put to the person through the `Approver` after the gate, and only
their switch changes the mode, logged `plan_reviewed` then `mode_changed`; a tool's
`ToolOutput.plan` is logged `plan_updated` and told to the observer)

`subjects.py` (a call that writes several paths, such as a rename, is decided by its
strictest path), calls in the model's order (only adjacent read-only calls run
together), bounded observations (`shaping.py`) with secrets masked (`workspace/redaction.py`), audit
events;

`hook_gate.py`: a PreToolUse hook's answer weighed against the gate's decision (deny and
ask on top of the rules; allow as much as an allow rule for exactly that call); the
pipeline fires the settings' PreToolUse and PostToolUse hooks around each call (notes
for the model after its result, a file a hook changed named) and Notification hooks
while a question waits;

`deadlines.py` (each call's time limit as a dict entry under one timer, not a timer per
call).
"""
