"""AgentProtocol: pygls's LanguageServerProtocol with what the language server adds.

`$/cancelRequest` also ends the run a waited `agentls.ask` holds; a request whose
params do not fit its method is answered InvalidParams, and a notification sent
with an id InvalidRequest (pygls leaves both unanswered); requests after
`shutdown` are answered; and requests an editor sends whatever the capabilities
say are answered empty (docs/pygls-reader-patch.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest

_ANSWERED = object()  # a message already answered with an error
# Requests an editor sends whatever the server's capabilities say, answered empty
# rather than with MethodNotFound: Kate's symbol outline asks every document's server
# for its symbols (and asks again four times after an error, each error a warning that
# opens its Output pane). Not advertised, so no other editor takes agentls for a
# symbol provider in place of the language's own server.
UNADVERTISED_EMPTY_ANSWERS: dict[str, object] = {types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: []}


class AgentProtocol(LanguageServerProtocol):
    """$/cancelRequest also aborts the run a waited agentls.ask is holding.

    pygls cancels only its own result future for executeCommand, not the
    command's coroutine; without this the run would go on.
    """

    # The server's: ends the run a waited request holds (none before it is set).
    on_cancel: Callable[[Any], None] | None = None

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        if self.on_cancel is not None:
            self.on_cancel(msg_id)
        super()._handle_cancel_notification(msg_id)

    def current_request_id(self) -> Any:
        return self.msg_id

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A request whose params do not fit its method gets an InvalidParams answer.

        pygls only logs such a message, leaving the client waiting for ever. So
        it does with a notification's method sent with an id: that is answered
        InvalidRequest (and not run). Params may be left out, as JSON-RPC allows.
        """
        is_request = "id" in data and "method" in data
        if "method" in data and "params" not in data:
            data = {**data, "params": None}
        try:
            message = super().structure_message(data)
        except JsonRpcException as exc:
            if is_request:
                text = f"invalid params for {data.get('method')}: {exc.__cause__ or exc}"
                self._answer_error(data["id"], JsonRpcInvalidParams(message=text[:500]))
                return _ANSWERED
            raise
        if is_request and not hasattr(message, "id"):
            text = f"{data['method']} is a notification: send it without an id"
            self._answer_error(data["id"], JsonRpcInvalidRequest(message=text[:500]))
            return _ANSWERED
        return message

    def handle_message(self, message: Any) -> None:
        if message is _ANSWERED:
            return
        if self._shutdown and isinstance(message, RPCRequest):
            # The LSP says so; pygls drops them, leaving the client waiting.
            self._answer_error(message.id, JsonRpcInvalidRequest(message="the server shut down"))
            return
        super().handle_message(message)

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        if method_name in UNADVERTISED_EMPTY_ANSWERS and method_name not in self.fm.features:
            self._send_response(msg_id, UNADVERTISED_EMPTY_ANSWERS[method_name])
            return
        super()._handle_request(msg_id, method_name, params)

    def _answer_error(self, msg_id: Any, error: JsonRpcException) -> None:
        self._send_response(msg_id, error=error.to_response_error())
