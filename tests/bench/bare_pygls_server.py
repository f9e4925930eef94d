"""The smallest pygls server, the yardstick for agentls's start-up time."""

from pygls.lsp.server import LanguageServer

server = LanguageServer("bare", "0")

if __name__ == "__main__":
    server.start_io()
