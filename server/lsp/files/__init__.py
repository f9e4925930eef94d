"""Files as the language server sees them: buffers first, edits as applyEdit, then disk."""
