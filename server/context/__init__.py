"""Projecting session state into the next ModelInput.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

The context layer.

`projector.py` (`ContextProjector`: history → the next `ModelInput`, incrementally;
decides elision and when to compact)

`policy.py` (the window per model, `choose_window`: the setting, the model table, the
server's answer, else 200,000 assumed and corrected at the first too-long refusal;
threshold, budgets, overflow advice)

`estimate.py` (token estimates, calibrated by billed usage)

`elision.py` (stubs for old bulky tool results, elided in steps that keep the oldest
results and at least half the request, so the cached prefix survives)

`summary.py` (the compaction call's input; the summary head)

`pinned.py` (facts pinned from the record: requests, edited files, refused calls, the
latest `update_plan` checklist that ran, the plan agreed in plan mode).
"""
