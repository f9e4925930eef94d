"""JSON-RPC errors whose message says what went wrong (the SDK's say only the code's name)."""

from __future__ import annotations

from acp import RequestError

INVALID_REQUEST, INVALID_PARAMS, INTERNAL, AUTH_REQUIRED = -32600, -32602, -32603, -32000


def invalid_params(message: str) -> RequestError:
    return RequestError(INVALID_PARAMS, message)


def invalid_request(message: str) -> RequestError:
    return RequestError(INVALID_REQUEST, message)


def auth_required(message: str) -> RequestError:
    return RequestError(AUTH_REQUIRED, message)


def internal(message: str) -> RequestError:
    return RequestError(INTERNAL, message)
