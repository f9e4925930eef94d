"""The language server's wire: framing, logs to the client, bounded server→client requests."""
