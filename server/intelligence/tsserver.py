"""Problems pulled from typescript-language-server through its `typescript.tsserverRequest`
command. Its pushes carry no document version and merge each kind of check as it
finishes, so a push may hold the previous text's verdict or only half of the new
one; tsserver answers these requests in order after the change, for the text sent.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

COMMAND = "typescript.tsserverRequest"
_KINDS = ("syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync")
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "message": types.DiagnosticSeverity.Information,
    "suggestion": types.DiagnosticSeverity.Hint,
}


def requests(uri: str) -> list[types.ExecuteCommandParams]:
    """One request per kind of check tsserver runs, for the open document ``uri``."""
    return [
        types.ExecuteCommandParams(COMMAND, [kind, {"file": uri, "includeLinePosition": False}])
        for kind in _KINDS
    ]


def diagnostics(response: Any) -> list[types.Diagnostic] | None:
    """tsserver's answer as LSP diagnostics; None when it is not a successful answer."""
    if not isinstance(response, dict) or response.get("success") is not True:
        return None
    body = response.get("body")
    if not isinstance(body, list):
        return None
    return [d for d in (_diagnostic(item) for item in body) if d is not None]


def _diagnostic(item: Any) -> types.Diagnostic | None:
    if not isinstance(item, dict):
        return None
    start, end = _position(item.get("start")), _position(item.get("end"))
    if start is None or end is None:
        return None
    code = item.get("code")
    return types.Diagnostic(
        range=types.Range(start, end),
        message=str(item.get("text", "")),
        severity=_SEVERITY.get(str(item.get("category")), types.DiagnosticSeverity.Error),
        code=code if isinstance(code, (int, str)) else None,
        source=str(item.get("source") or "typescript"),
    )


def _position(value: Any) -> types.Position | None:
    # tsserver's lines and offsets are 1-based, in UTF-16 code units like LSP's.
    if not isinstance(value, dict):
        return None
    line, offset = value.get("line"), value.get("offset")
    if not isinstance(line, int) or not isinstance(offset, int):
        return None
    return types.Position(max(line - 1, 0), max(offset - 1, 0))
