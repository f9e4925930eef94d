"""What the JSON-RPC fuzz sends: valid LSP messages, their mutations, broken framing.

``templates`` are valid messages for one workspace; ``items`` draws one thing to
send (a mutated message, raw JSON, a body that is no JSON, a message in broken
framing...); ``to_frame`` turns it into bytes plus what JSON-RPC owes the client
for them: answers with given ids, and answers with a null id.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.reliability.jsonrpc import encode, frame


class Id:
    """Where a request id goes; the test fills in a fresh one when it sends."""

    def __init__(self, kind: str = "int") -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"Id({self.kind})"


ID_KINDS = ["int", "huge", "negative", "zero", "string", "unicode", "float", "bool", "null",
            "object", "list"]  # fmt: skip
NASTY = [
    "", " ", "\x00", "\ud800", "\U0001f600" * 50, "a" * 20_000, "../../../etc/passwd",
    "file:///etc/passwd", "file://", "file:///%00", "untitled:Untitled-1", "::::", "$/x",
    "agentls.ask", "workspace/executeCommand", "-1", "NaN", "null", "{}", "[]",
    "file:///dev/zero", "file:///dev/stdin", "file:///proc/self/fd/0",
]  # fmt: skip


@dataclass
class Frame:
    """Bytes to send, what the client is owed, and a label for the failure message."""

    label: str
    data: bytes | list[bytes]  # a list is sent in pieces, flushed one by one
    owed_ids: list[Any] = field(default_factory=list)
    owed_nulls: int = 0


# --- valid messages to start from ------------------------------------------------------


def templates(root: Path) -> list[dict[str, Any]]:
    doc = (root / "a.py").as_uri()
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 4}}
    diag = {"range": rng, "message": "undefined name 'x'", "source": "pyflakes", "severity": 1}

    def request(method: str, params: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": Id(), "method": method, "params": params}

    def notification(method: str, params: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": method, "params": params}

    def command(name: str, *arguments: Any) -> dict[str, Any]:
        return request("workspace/executeCommand", {"command": name, "arguments": list(arguments)})

    return [
        request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {"window": {"workDoneProgress": True}},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "project"}],
                "initializationOptions": {"model": "scripted:" + str(root / "script.json")},
                "clientInfo": {"name": "fuzz", "version": "1"},
            },
        ),
        request(
            "textDocument/codeAction",
            {"textDocument": {"uri": doc}, "range": rng, "context": {"diagnostics": [diag]}},
        ),
        command("agentls.ask", {"prompt": "fix it", "uri": doc, "range": rng, "wait": True}),
        command("agentls.ask", {"prompt": "hello", "sessionId": "20260101-000000-abcdef"}),
        command("agentls.cancel", {"sessionId": "20260101-000000-abcdef"}),
        command("agentls.cancel"),
        command("agentls.sessions"),
        command("agentls.showTranscript", {"sessionId": "20260101-000000-abcdef"}),
        command("agentls.setMode", {"mode": "plan", "sessionId": "20260101-000000-abcdef"}),
        command("agentls.answer", {"id": "toolu_1", "answer": "deny"}),
        command("agentls.showDiff", {"id": "review-1"}),
        command("agentls.undo", {"sessionId": "20260101-000000-abcdef", "turn": 1}),
        command("agentls.mcp", {"start": False}),
        notification(
            "textDocument/didOpen",
            {"textDocument": {"uri": doc, "languageId": "python", "version": 1, "text": "x = 1\n"}},
        ),
        notification(
            "textDocument/didChange",
            {
                "textDocument": {"uri": doc, "version": 2},
                "contentChanges": [{"range": rng, "text": "y = 2"}, {"text": "z = 3\n"}],
            },
        ),
        notification("textDocument/didClose", {"textDocument": {"uri": doc}}),
        notification("textDocument/didSave", {"textDocument": {"uri": doc}}),
        notification(
            "workspace/didChangeConfiguration", {"settings": {"agentls": {"maxTurns": 3}}}
        ),
        notification("$/cancelRequest", {"id": 1}),
        notification("window/workDoneProgress/cancel", {"token": "agentls-1"}),
        notification("initialized", {}),
        {"jsonrpc": "2.0", "id": 1, "result": None},  # a response to nothing we asked
    ]


# --- strategies ----------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(NASTY)
)


def containers(kids: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4)


json_values = st.recursive(scalars, containers, max_leaves=10)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (dict keys and list indexes)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, (*prefix, i))
    return found


def parent_of(message: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        message = message[step]
    return message


def retyped(value: Any) -> Any:
    """The same content in another JSON type."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)}
    if isinstance(value, dict):
        return list(value.values())
    return 0


def odd_files(root: Path) -> list[str]:
    """Documents that are no plain text file: a device, a pipe, binary, a folder, outside."""
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (root / "folder").mkdir()
    os.mkfifo(root / "pipe")
    names = ["binary.bin", "folder", "pipe", "missing.py", "../outside.py", "a.py"]
    return [(root / name).as_uri() for name in names] + [
        "file:///dev/zero", "file:///dev/stdin", "file:///proc/self/fd/0", "file:///",
    ]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, pool: list[dict[str, Any]], uris: list[str]) -> Any:
    message: Any = copy.deepcopy(draw(st.sampled_from(pool)))
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        ops = ["drop", "replace", "retype", "add", "method", "id", "version", "uri", "uri"]
        op = draw(st.sampled_from(ops))
        where = paths(message)
        at_uris = [p for p in where if p[-1] == "uri"]
        if op == "uri" and at_uris:
            path = draw(st.sampled_from(at_uris))
            parent_of(message, path)[path[-1]] = draw(st.sampled_from(uris))
        elif op in ("drop", "replace", "retype") and where:
            path = draw(st.sampled_from(where))
            parent = parent_of(message, path)
            if op == "drop":
                del parent[path[-1]]
            elif op == "replace":
                parent[path[-1]] = draw(json_values)
            else:
                parent[path[-1]] = retyped(parent[path[-1]])
        elif op == "add":
            dicts = [p for p in [(), *where] if isinstance(parent_of(message, (*p, 0)), dict)]
            target = parent_of(message, (*draw(st.sampled_from(dicts)), 0))
            target[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
        elif op == "method":
            message["method"] = draw(
                st.sampled_from(["agentls/nothing", "textDocument/hover", "$/unknown", ""])
                | st.text(max_size=30)
                | json_values
            )
        elif op == "id":
            message["id"] = Id(draw(st.sampled_from(ID_KINDS)))
        else:
            message["jsonrpc"] = draw(st.sampled_from(["1.0", "2", 2.0, None]) | json_values)
    if isinstance(message.get("method"), str) and message["method"] in ("exit", "shutdown"):
        message["method"] = "agentls/not-" + message["method"]  # those end the session: at the end
    return message


garbage = st.binary(max_size=60).filter(lambda b: b"ength" not in b.lower())
headers = st.sampled_from(
    [
        b"content-length: %d\r\n\r\n",
        b"CONTENT-LENGTH: %d\r\n\r\n",
        b"Content-Length:%d\r\n\r\n",
        b"Content-Length:   %d  \r\n\r\n",
        b"Content-Length: %d\n\n",
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
        b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc\r\nX-Odd: 1\r\n\r\n",
    ]
)


def plain(message: Any) -> Any:
    """For shapes and sizes only: Id placeholders as ints."""
    if isinstance(message, Id):
        return 1
    if isinstance(message, dict):
        return {k: plain(v) for k, v in message.items()}
    if isinstance(message, list):
        return [plain(v) for v in message]
    return message


@st.composite
def items(draw: st.DrawFn, pool: list[dict[str, Any]], uris: list[str]) -> tuple[str, Any]:
    """One thing to send, as (kind, payload): a message with Id placeholders, raw JSON,
    a body, or a message with what its broken framing needs (see ``to_frame``)."""
    kind = draw(
        st.sampled_from(
            ["message"] * 12
            + ["json", "body", "deep", "big", "header", "garbage-first", "short", "long", "zero"]
            + ["no-length", "huge-length", "pieces"]
        )
    )
    if kind == "message":
        return kind, draw(mutated(pool, uris))
    if kind == "json":
        return kind, draw(json_values)
    if kind == "body":
        return kind, draw(st.binary(max_size=80) | st.text(max_size=40).map(str.encode))
    if kind == "deep":
        return kind, draw(st.integers(min_value=2_000, max_value=200_000))
    if kind == "big":
        return kind, (draw(st.sampled_from(pool[1:])), draw(st.integers(100_000, 3_000_000)))
    extra = draw(headers) if kind == "header" else draw(garbage) if kind == "garbage-first" else 0
    if kind in ("short", "long"):
        extra = draw(st.integers(min_value=1, max_value=40))
    return kind, (draw(mutated(pool, uris)), extra)


def odd_documents(pool: list[dict[str, Any]], uris: list[str]) -> list[list[tuple[str, Any]]]:
    """A batch per odd document: a code action on it, an ask about a range of it."""
    batches = []
    for uri in uris:
        batch = []
        for template in pool:
            params = template.get("params")
            if template.get("method") == "textDocument/codeAction":
                batch.append(("message", {**template, "params": {**params,
                              "textDocument": {"uri": uri}}}))  # fmt: skip
            elif params and params.get("command") == "agentls.ask" and "range" in str(params):
                argument = {**params["arguments"][0], "uri": uri}
                batch.append(("message", {**template, "params": {**params,
                              "arguments": [argument]}}))  # fmt: skip
        batches.append(batch)
    return batches


# --- what the client is owed ---------------------------------------------------------


def owed(message: Any) -> tuple[list[Any], int]:
    """(ids the server must answer, answers with a null id it must send) for one message."""
    if not isinstance(message, dict):
        return [], 1
    if "method" not in message or "id" not in message:
        return [], 0  # a response, a notification, or nothing: nobody waits
    msg_id = message["id"]
    if not isinstance(msg_id, int | str) or isinstance(msg_id, bool):
        return [], 1
    return [msg_id], 0


class Ids:
    def __init__(self) -> None:
        self.n = 0

    def fresh(self, kind: str) -> Any:
        self.n += 1
        n = self.n
        return {
            "int": n, "huge": 10**30 + n, "negative": -n, "zero": 0 if n % 50 == 0 else n,
            "string": f"req-{n}", "unicode": f"\u00e9\U0001f600-{n}", "float": n + 0.5,
            "bool": n % 2 == 0, "null": None, "object": {"n": n}, "list": [n],
        }[kind]  # fmt: skip

    def fill(self, message: Any) -> Any:
        if isinstance(message, Id):
            return self.fresh(message.kind)
        if isinstance(message, dict):
            return {k: self.fill(v) for k, v in message.items()}
        if isinstance(message, list):
            return [self.fill(v) for v in message]
        return message


def to_frame(kind: str, payload: Any, ids: Ids) -> Frame:
    if kind == "message":
        message = ids.fill(payload)
        body = encode(message)
        got_ids, nulls = owed(message)
        return Frame(f"message {body[:300]!r}", frame(body), got_ids, nulls)
    if kind == "json":
        return Frame(f"json {payload!r:.300}", frame(encode(payload)), *owed(payload))
    if kind == "body":
        try:
            parsed = json.loads(payload)
        except (ValueError, RecursionError):
            return Frame(f"body {payload!r}", frame(payload), [], 1)
        return Frame(f"body {payload!r}", frame(payload), *owed(parsed))
    if kind == "deep":
        depth = payload
        body = b'{"jsonrpc":"2.0","id":7,"method":"x","params":' + b"[" * depth + b"]" * depth
        return Frame(f"nested {depth} deep", frame(body + b"}"), [], 1)
    if kind == "big":
        template, size = payload
        message = ids.fill(template)
        message["params"] = {**(message.get("params") or {}), "padding": "x" * size}
        if message.get("method") == "textDocument/didOpen":
            message["params"]["textDocument"]["text"] = "# big\n" * (size // 6)
        return Frame(f"big {message.get('method')} of {size} bytes", frame(encode(message)),
                     *owed(message))  # fmt: skip
    message = ids.fill(payload[0])
    body = encode(message)
    got_ids, nulls = owed(message)
    label = f"{kind} {payload[1]!r:.80} {body[:200]!r}"
    if kind == "header":
        return Frame(label, payload[1] % len(body) + body, got_ids, nulls)
    if kind == "garbage-first":
        return Frame(label, payload[1] + frame(body), got_ids, nulls)
    if kind == "pieces":
        data = frame(body)
        cuts = [0, *sorted({len(data) // 3, len(data) // 2, len(data) - 1}), len(data)]
        return Frame(label, [data[a:b] for a, b in itertools.pairwise(cuts)], got_ids, nulls)
    if kind == "short":  # the body is cut short: a parse error; the rest is garbage
        cut = max(0, len(body) - payload[1])
        return Frame(label, b"Content-Length: %d\r\n\r\n" % cut + body, [], 1)
    if kind == "long":  # garbage after the JSON, inside the announced length: a parse error
        pad = b"x" * payload[1]
        return Frame(label, b"Content-Length: %d\r\n\r\n" % (len(body) + len(pad)) + body + pad,
                     [], 1)  # fmt: skip
    if kind == "zero":  # an empty body (a parse error); the real body is then garbage
        return Frame(label, b"Content-Length: 0\r\n\r\n" + body, [], 1)
    if kind == "no-length":  # no header at all: the body is garbage, nothing is owed
        return Frame(label, b"\r\n" + body, [], 0)
    assert kind == "huge-length"  # refused outright (InvalidRequest); the body is garbage
    return Frame(label, b"Content-Length: 99999999999999\r\n\r\n" + body, [], 1)
