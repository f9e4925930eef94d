"""The public contract of the language-server face as pydantic models.

`agentls/event` notifications and every `agentls.*` command's argument and
result, with their camelCase wire names. No IO and no LSP library: other faces
and the JSON Schema in docs/ (`python -m agentls.protocol.schema`) use them too.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

The public contract of the language-server face as pydantic models (no IO, no LSP
library): the `agentls/event` kinds (a discriminated union), every `agentls.*` command's
params and result, the doctor and MCP reports.

`events.py` (the `agentls/event` kinds), `commands.py` (each command's argument and
result, `COMMANDS`), `reports.py` (the doctor and MCP reports), `common.py` (shapes
several share: positions, usage, budget, outcome).

`wire.py`: camelCase, every key written, absent only where marked (`Omittable`,
`AbsentUnlessGiven`).

`schema.py` generates `docs/protocol.schema.json`, the session log's events included
(`Log…` names); `vscode-client/scripts/generate-protocol.mjs` turns it into
`src/protocol.generated.ts` (commands and editor events) and `src/protocol-
log.generated.ts` (the log's lines). Loaded after `initialize`.
"""
