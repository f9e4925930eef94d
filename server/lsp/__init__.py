"""The language-server face: the only code that imports pygls and lsprotocol."""
