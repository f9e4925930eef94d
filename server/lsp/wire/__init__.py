"""The language server's wire: messages in, answers and requests out.

- `framing.py`: reading frames that survive a broken client (any header case,
  bounded sizes, every request answered); pygls internals pinned to one minor
  version and checked by `tests/unit/lsp/test_pygls_contract.py`
  (`docs/pygls-reader-patch.md` proposes the fixes upstream).
- `agent_protocol.py`: `AgentProtocol`: `$/cancelRequest` also ends a waited run,
  bad params answered InvalidParams, a notification sent with an id InvalidRequest,
  requests after `shutdown` answered, and an empty answer, never advertised, to
  requests an editor sends whatever the capabilities say (Kate's
  `textDocument/documentSymbol`).
- `client_requests.py`: `ask_client`: every server→client request shielded and
  bounded in time; a missing, late or failing answer is None, never a hang.
- `log_forwarding.py`: logs to stderr and `window/logMessage`, never to stdout.
"""
