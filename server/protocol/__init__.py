"""The public contract of the language-server face as pydantic models.

`agentls/event` notifications and every `agentls.*` command's argument and
result, with their camelCase wire names. No IO and no LSP library: other faces
and the JSON Schema in docs/ (`python -m agentls.protocol.schema`) use them too.
"""
