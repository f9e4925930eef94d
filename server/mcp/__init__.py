"""MCP servers as a source of external tools: configuration, connections, tool definitions.

This package turns the servers configured in `mcpServers` into ToolDefinitions
that the runtime gates like any other tool (risk `external`). It never imports
the loop, the conversation or the faces.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

MCP servers as a source of external tools: `config.py` (`mcpServers`, `${VAR}`;
`for_log`: env and header values and the value of an argument option named for a secret
hidden; `target()` masked)

`connection.py` (one server, the `Child` its `supervision` lifecycle drives: the
transport and session held by one task per start, timeouts, a crash under a call
counted)

`tools.py` (`mcp__server__tool` ToolDefinitions, results as text)

`schema.py` (JSON-schema input checks as a pydantic model)

`hub.py` (servers by workspace and name on `supervision.Registry`, replaced when their
config changes; a run's tools; reports).
"""
