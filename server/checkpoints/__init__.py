"""Checkpoints: the workspace before and after each turn that may change it.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`gitstore.py`: a private git repository per workspace (where it lives worked out on
first use, on its worker thread; the workspace as work tree, its objects borrowed
through alternates) holding snapshots under `refs/agentls/`, with a warm split index per
store;

`objects.py`: blobs, commits and refs written straight into the private store, only for
paths that changed;

`undo.py`: which files to put back for one turn or a whole ask, the conflicts that stop
an undo, and the paths it refuses (one a link now takes out of the workspace: never
read, never written). Each store operation (its git processes, scans and object writes)
runs whole on a worker thread, one at a time per store.
"""
