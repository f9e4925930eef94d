"""Questions waiting for the person as code actions and diagnostics."""
