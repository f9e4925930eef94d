"""Types shared by every part of agentls. This package does no IO.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

The shared types: messages and content blocks, `ModelInput` and the `ModelEvent` stream,
`ToolIntent`, `Observation` (+ `ErrorCode`), `TerminalReason`, `RunResult`,
`BudgetOverrun` (`BudgetLimit`), permission decisions (with the gate's reason and
`person_only`), `ModelErrorKind`, `INVALID_JSON_KEY`, `ModelInput.stable_prefix` (where
the next elision step will begin: the cache breakpoint), the `RunObserver` callbacks
(`HookNotice`: what a settings hook tells the person),
`completion_note` (a completed run's detail when the model stopped early);
`values.value`, the decorator of these immutable types (frozen to mypy, plain slotted
dataclasses at run time, since a turn builds about twenty); `waiting.within`, the one
bounded wait (`asyncio.timeout`, which keeps a cancellation that arrives as the awaited
thing finishes), and `waiting.to_its_end`, a worker-thread call a cancelled caller still
waits out (a lock taken, a file written before its clean-up). No IO.

Files: `messages.py` (messages, content blocks), `model_io.py` (`ModelInput`, the
`ModelEvent` stream), `tooling.py` (tool calls, `Observation`, the tool-definition
shape), `outcomes.py` (terminal reasons, `RunResult`), `decisions.py` (permission
decisions, approval questions), `observer.py` (`RunObserver`), `usage.py` (token usage),
`errors.py` (errors that stop work before it starts), `values.py`, `waiting.py`.

`running.py`: `running_call()`, the tool call the runtime is running in this task (set by
`calling` around each call), which a workspace that reviews edits reads to know the tool.

`plans.py`: `Plan` (the model's checklist, `PLAN_TOOL`), `PlanProposal` and the
person's `PlanAnswer` (`switches` only at a person's word; `NO_PERSON`).

`window.py`: `ServerWindow`, a window a server reported: tokens, where it came from, the
day it was remembered.

`reasoning.py`: the reasoning levels (`off`, `low`, `medium`, `high`) and `Reasoning`, what
a request asks of a model's thinking in its API's terms (adaptive with an effort, a
budget, or an effort word), worked out above the providers.

`images.py`: `ImageLimits`, what a model API takes of a prompt's images (bytes, pixels,
how many, animated GIFs), declared by each provider. `messages.ImageBlock` is an image
of a prompt: logged by hash, its data filled where the session's images are read.
`processes.py`: a session's background processes as every face sees them:
`ProcessInfo` (id, command, state, exit code, the `CallRef` that started it, where it
runs), `ProcessChange` (started, exited, stopped and by whom), `ProcessRead` (what one
read gave).
"""
