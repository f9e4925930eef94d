"""tsserver's diagnostics, as typescript-language-server's tsserverRequest answers them."""

from __future__ import annotations

from lsprotocol import types

from agentls.intelligence import tsserver


def test_requests_ask_every_kind_of_check_for_the_document() -> None:
    params = tsserver.requests("file:///w/main.ts")
    assert [p.command for p in params] == [tsserver.COMMAND] * 3
    assert [p.arguments[0] for p in params if p.arguments] == [
        "syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync",
    ]  # fmt: skip
    assert all(p.arguments and p.arguments[1]["file"] == "file:///w/main.ts" for p in params)


def test_answers_become_lsp_diagnostics_with_zero_based_positions() -> None:
    answer = {
        "type": "response", "success": True,
        "body": [
            {"start": {"line": 3, "offset": 26}, "end": {"line": 3, "offset": 31},
             "text": "Argument of type 'string' is not assignable.", "code": 2345,
             "category": "error"},
            {"start": {"line": 1, "offset": 1}, "end": {"line": 1, "offset": 7},
             "text": "'x' is declared but never used.", "code": 6133, "category": "suggestion",
             "source": "eslint"},
        ],
    }  # fmt: skip
    first, second = tsserver.diagnostics(answer) or []
    assert first.range == types.Range(types.Position(2, 25), types.Position(2, 30))
    assert (first.severity, first.code, first.source) == (
        types.DiagnosticSeverity.Error, 2345, "typescript",
    )  # fmt: skip
    assert first.message == "Argument of type 'string' is not assignable."
    assert (second.severity, second.source) == (types.DiagnosticSeverity.Hint, "eslint")


def test_a_failed_or_odd_answer_is_no_verdict() -> None:
    assert tsserver.diagnostics({"success": False, "message": "No Project."}) is None
    assert tsserver.diagnostics(None) is None
    assert tsserver.diagnostics({"success": True, "body": None}) is None
    assert tsserver.diagnostics({"success": True, "body": [{"start": 1}, "x"]}) == []
