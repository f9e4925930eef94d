"""The smallest pygls server, the yardstick for agentls's start-up time; with
``--code-actions`` it also answers code actions (empty), the yardstick for answer
times under load."""

import sys

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bare", "0")

if "--code-actions" in sys.argv:

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return []


if __name__ == "__main__":
    server.start_io()
