"""The connected editor: what it can do, how it is asked, its requests.

- `protocols.py`: the editor as each caller sees it, one small Protocol per caller
  (`Asks`, `AsksApprovals`, `ShowsDocuments`, `Reviews`, `OffersQuestions`,
  `SavesThroughEditor`, `AppliesEdits`, and `EditorClient`, `LspWorkspace`'s);
  `Kind`, `Route`, `PromptReply`.
- `client.py`: `LspEditorClient`: capabilities, routes, the document touched last, the
  question board, every server→client request (through `wire/client_requests.py`).
- `routes.py`: which way a question goes: `approvalsVia`/`reviewVia` and the client's
  capabilities.
- `intelligence.py`: the `agentls/*` language requests to a client that declares
  `experimental.agentls.intelligence`; `agentls/languageServers` to clients that
  declare `languageServers`.
"""
