"""The one error a language server's absence, crash or silence becomes."""


class ServerUnavailable(Exception):
    """The server cannot answer; the message says why, for the model and the person."""
