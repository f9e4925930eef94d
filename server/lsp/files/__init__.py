"""Files as the language server sees them: buffers first, edits as applyEdit, then disk.

- `lsp_workspace.py`: `LspWorkspace`, the `Workspace` the tools see: open buffers
  read before the disk, a write reviewed (by the route) and landed, commands told of
  unsaved buffers, undo through `workspace/applyEdit`.
- `edit_steps.py`: `EditSteps`, an edit's steps for one file or several: what a file
  holds now, one applyEdit, what landed in the buffer, the disk made to hold it.
- `batch_edits.py`: a change of several files (a rename): one review, one applyEdit,
  disk per file.
- `disk_sync.py`: an accepted edit in a plain client's open buffer reaches the disk
  through the person's own save (bounded by `approvalTimeoutSeconds`, then the
  server writes); undo's restored buffers the same.
- `edits.py`: versioned minimal `TextEdit`s, optionally annotated.
- `disk.py`: `OffLoopDisk`: the workspace's file calls on a worker thread.
- `session_link.py`: `SessionLink`: the session id, policy and run listener an
  `LspWorkspace` is built with and bound to once the conversation is open; whether an
  edit is reviewed is the policy's word for the tool making it (`needs_review`).
"""
