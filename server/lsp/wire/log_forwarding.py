"""Logs go to stderr and to window/logMessage, never to stdout (the protocol's channel)."""

from __future__ import annotations

import logging
import sys

from lsprotocol import types
from pygls.lsp.server import LanguageServer

_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class LogMessageHandler(logging.Handler):
    def __init__(self, server: LanguageServer) -> None:
        super().__init__(level=logging.INFO)
        self.server = server
        self._sending = False

    def emit(self, record: logging.LogRecord) -> None:
        if self._sending or self.server.protocol.writer is None:
            return  # no recursion through a failing writer, nothing before the connection
        self._sending = True
        try:
            kind = _LEVELS.get(record.levelno, types.MessageType.Log)
            if record.levelno >= logging.ERROR:
                kind = types.MessageType.Error
            self.server.window_log_message(
                types.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:
            pass  # a log line must never break the server
        finally:
            self._sending = False


def configure(server: LanguageServer, verbose: bool = False) -> None:
    """stderr already has the CLI's handler; add the forwarder for agentls's own logs."""
    agentls_log = logging.getLogger("agentls")
    agentls_log.setLevel(logging.DEBUG if verbose else logging.INFO)
    if not logging.getLogger().handlers:
        logging.getLogger().addHandler(logging.StreamHandler(sys.stderr))
    forward = LogMessageHandler(server)
    forward.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    agentls_log.addHandler(forward)
