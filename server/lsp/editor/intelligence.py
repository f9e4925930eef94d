"""The editor's own language intelligence, asked over the `agentls/*` request family.

A client that answers `agentls/problems`, `agentls/definition`,
`agentls/references`, `agentls/symbols` or `agentls/rename` lists them in the
experimental capability `{"agentls": {"intelligence": [...]}}`
(docs/editor-intelligence.md); agentls then routes the Workspace's
language questions to it (`agentls.intelligence.router`). Each request is
shielded and bounded (`client_requests.ask_client`): no answer means
agentls's own servers answer, or, with `languageIntelligence: "editor"`, that
the editor could not. The state of agentls's own servers goes to the editor as
`agentls/languageServers` notifications, for its status line, when it declares
`{"agentls": {"languageServers": true}}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

from agentls.lsp.wire.client_requests import ask_client

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

STATUS_METHOD = "agentls/languageServers"


class UsesEditor(Protocol):
    """The conversation manager, as this face wires the editor's language answers into it."""

    def use_editor(self, editor: Any, on_status: Callable[[dict[str, Any]], None]) -> None: ...


def _declared(capabilities: types.ClientCapabilities | None) -> dict[str, Any]:
    experimental = capabilities.experimental if capabilities is not None else None
    mine = experimental.get("agentls") if isinstance(experimental, dict) else None
    return mine if isinstance(mine, dict) else {}


def offered(capabilities: types.ClientCapabilities | None) -> frozenset[str]:
    """The `agentls/*` language requests the client says it answers."""
    methods = _declared(capabilities).get("intelligence")
    if not isinstance(methods, list):
        return frozenset()
    return frozenset(m for m in methods if isinstance(m, str))


def wants_status(capabilities: types.ClientCapabilities | None) -> bool:
    """The client shows `agentls/languageServers` (others would warn about an unknown method)."""
    return _declared(capabilities).get("languageServers") is True


class EditorRequests:
    """`EditorLanguage` over the LSP connection (capabilities read once initialized)."""

    def __init__(self, server: LanguageServer) -> None:
        self._server = server

    @property
    def name(self) -> str:
        # clientInfo.name, as the face's editor client keeps it
        name = getattr(getattr(self._server, "editor", None), "name", "")
        return name if isinstance(name, str) and name else "the editor"

    def offers(self, method: str) -> bool:
        return method in offered(_capabilities(self._server))

    async def ask(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        what = f"agentls/{method}"
        answer = await ask_client(
            self._server.protocol.send_request_async(what, params), timeout, what
        )
        return _plain(answer)


def connect(manager: UsesEditor, server: LanguageServer) -> None:
    """Route the language questions this editor answers to it, and tell it which
    language servers agentls runs."""

    def tell(status: dict[str, Any]) -> None:
        if wants_status(_capabilities(server)):
            server.protocol.notify(STATUS_METHOD, status)

    manager.use_editor(EditorRequests(server), tell)


def _capabilities(server: LanguageServer) -> types.ClientCapabilities | None:
    try:
        return server.client_capabilities
    except (AttributeError, RuntimeError):  # not initialized yet
        return None


def _plain(value: Any) -> Any:
    """pygls may hand untyped answers over as namedtuple-like objects."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
