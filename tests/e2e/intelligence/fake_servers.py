"""Small language servers for the lifecycle and fault tests.

exit: ends at once. hang: reads everything, answers nothing. crash: answers initialize,
then dies on the first document it is given (each time it is started). ok: answers every
request with null, publishes no problems, and ends on `exit`. slowpull: like ok, but
answers pull diagnostics (one problem) without advertising them, the first time only
after 1.5 s, as a server still loading its project does.
"""

import json
import sys
import time


def read_message() -> dict:
    length = 0
    while (line := sys.stdin.buffer.readline().strip()) != b"":
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(payload: dict) -> None:
    body = json.dumps(payload).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    sys.stdout.buffer.flush()


mode = sys.argv[1]
if mode == "exit":
    sys.exit(3)
if mode == "hang":
    while sys.stdin.buffer.read(1):
        pass
    sys.exit(0)
pulled = False
while True:
    message = read_message()
    method = message.get("method")
    if method == "initialize":
        capabilities = {"textDocumentSync": 1, "definitionProvider": True}
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": capabilities}})
    elif method == "textDocument/didOpen" and mode == "crash":
        sys.exit(4)
    elif method == "textDocument/diagnostic" and mode == "slowpull":
        if not pulled:
            time.sleep(1.5)
        pulled = True
        problem = {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "severity": 1,
            "message": "slow but sure",
            "source": "fake",
        }
        report = {"kind": "full", "items": [problem]}
        send({"jsonrpc": "2.0", "id": message["id"], "result": report})
    elif method == "exit":
        sys.exit(0)
    elif "id" in message:
        send({"jsonrpc": "2.0", "id": message["id"], "result": None})
