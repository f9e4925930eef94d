"""MCP servers as a source of external tools: configuration, connections, tool definitions.

This package turns the servers configured in `mcpServers` into ToolDefinitions
that the runtime gates like any other tool (risk `external`). It never imports
the loop, the conversation or the faces.
"""
