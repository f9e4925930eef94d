"""JSON-RPC fuzz: thousands of broken and mutated messages against one `agentls serve`.

Hypothesis builds batches of frames: valid LSP messages (initialize,
codeAction, executeCommand for every agentls command, didOpen, didChange,
didClose, configuration, cancels) mutated up to three times (keys dropped,
values of the wrong type, unknown keys, odd ids, other methods, another
jsonrpc), raw JSON that is no message, bodies that are not JSON or not UTF-8,
JSON nested too deep, large messages, and broken framing that can be recovered
from (header names in any case, \\n line endings, extra headers, garbage
before a header, a length too short, too long, zero, missing or huge).

For each frame the test knows what JSON-RPC owes the client: an answer with
the request's id, an error with a null id (when no id can be read), or
nothing (notifications, responses). After every batch all owed answers have
arrived, the server answers a probe and is still running; at the end it
answers normal requests, refuses requests after shutdown, and exits 0.

Hypothesis is derandomized with no example database, so CI sees the same
messages every run; there is no shrinking, since one long-lived server carries
state from batch to batch (a failure prints the batch and the server's stderr).
"""

from __future__ import annotations

import collections
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from tests.reliability.conftest import Figures
from tests.reliability.fuzz_messages import (
    Ids,
    items,
    odd_documents,
    odd_files,
    plain,
    templates,
    to_frame,
)
from tests.reliability.jsonrpc import RawServer, key

# Batches of about four frames each, plus a probe per batch.
EXAMPLES = int(os.environ.get("AGENTLS_FUZZ_BATCHES", "2000"))


# --- the test ------------------------------------------------------------------------


@dataclass
class Tally:
    frames: int = 0
    requests_answered: int = 0
    null_id_errors: int = 0
    kinds: collections.Counter[str] = field(default_factory=collections.Counter)
    codes: collections.Counter[str] = field(default_factory=collections.Counter)
    slowest: float = 0.0
    shutdown: float = 0.0
    runs: int = 0
    internal: list[str] = field(default_factory=list)  # internal errors, with their request


def test_fuzzed_json_rpc_never_stops_the_server(tmp_path: Path, figures: Figures) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("x = 1\nprint(x)\n")
    (root / "script.json").write_text('{"turns": []}')  # every run ends at once: model_error
    env = {"AGENTLS_STATE_DIR": str(tmp_path / "state")}
    pool = templates(root)
    uris = odd_files(root)
    server = RawServer(env, cwd=root, keep_messages=False)
    ids = Ids()
    tally = Tally()
    started = time.monotonic()
    try:
        init = server.request(0, "initialize", plain(pool[0]["params"]))
        assert "result" in init, init
        server.notify("initialized", {})

        def batch_is_answered(batch: list[tuple[str, Any]]) -> None:
            frames = [to_frame(kind, payload, ids) for kind, payload in batch]
            for i in (i for f in frames for i in f.owed_ids):
                server.forget(i)  # an id used before (0) must be answered again
            nulls_before = server.null_id_errors
            for f in frames:
                server.send_bytes(*(f.data if isinstance(f.data, list) else [f.data]))
            probe = f"probe-{ids.fresh('int')}"
            server.send({"jsonrpc": "2.0", "id": probe, "method": "agentls/probe", "params": {}})
            owed_ids = [i for f in frames for i in f.owed_ids] + [probe]
            owed_nulls = sum(f.owed_nulls for f in frames)
            t0 = time.monotonic()
            try:
                server.wait_for(
                    lambda: (
                        all(key(i) in server.responses for i in owed_ids)
                        and server.null_id_errors >= nulls_before + owed_nulls
                    ),
                    timeout=30,
                    what="owed answers",
                )
            except AssertionError as exc:
                missing = [i for i in owed_ids if key(i) not in server.responses]
                nulls = server.null_id_errors - nulls_before
                sent = "\n  ".join(f.label for f in frames)
                raise AssertionError(
                    f"{exc}\nunanswered ids: {missing}; null-id errors {nulls} of {owed_nulls}"
                    f"\nthe batch:\n  {sent}"
                ) from None
            tally.slowest = max(tally.slowest, time.monotonic() - t0)
            assert server.alive, f"the server died\n{server.stderr_tail()}"
            assert server.responses[key(probe)]["error"]["code"] == -32601
            labels = {key(i): f.label for f in frames for i in f.owed_ids}
            for i in owed_ids[:-1]:
                answer = server.responses[key(i)]
                if answer.get("error", {}).get("code") == -32603:
                    tally.internal.append(f"{answer['error']['message'][:300]} <- {labels[key(i)]}")
                assert ("result" in answer) != ("error" in answer), answer
                if "error" in answer:
                    assert isinstance(answer["error"].get("code"), int), answer
                    assert isinstance(answer["error"].get("message"), str), answer
                    tally.codes[str(answer["error"]["code"])] += 1
                else:
                    tally.codes["result"] += 1
            tally.frames += len(frames) + 1
            tally.requests_answered += len(owed_ids)
            tally.null_id_errors += owed_nulls
            tally.kinds.update(kind for kind, _ in batch)
            tally.runs += sum("runId" in str(server.responses[key(i)]) for i in owed_ids)

        fuzz = given(batch=st.lists(items(pool, uris), min_size=1, max_size=8))(batch_is_answered)
        for batch in odd_documents(pool, uris):  # each odd document at least once
            fuzz = example(batch=batch)(fuzz)
        settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )(fuzz)()

        # Still a working server: normal requests, then a clean shutdown.
        sessions = server.request("after-1", "workspace/executeCommand",
                                  {"command": "agentls.sessions", "arguments": []})  # fmt: skip
        assert isinstance(sessions.get("result"), list), sessions
        actions = server.request(
            "after-2",
            "textDocument/codeAction",
            {
                "textDocument": {"uri": (root / "a.py").as_uri()},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 5}},
                "context": {"diagnostics": []},
            },
        )
        assert any("selection" in a["title"] for a in actions["result"]), actions
        t0 = time.monotonic()
        assert server.request("after-3", "shutdown", timeout=60)["result"] is None
        tally.shutdown = time.monotonic() - t0
        late = server.request("after-4", "workspace/executeCommand",
                              {"command": "agentls.sessions", "arguments": []})  # fmt: skip
        assert late["error"]["code"] == -32600, late
        server.notify("exit")
        assert server.proc.wait(timeout=15) == 0, server.stderr_tail()
    finally:
        server.kill()
    elapsed = time.monotonic() - started
    figures(
        f"fuzz: {tally.frames} frames in {EXAMPLES} batches, {elapsed:.1f} s; "
        f"{tally.requests_answered} requests answered ({tally.runs} started agent runs), "
        f"{tally.null_id_errors} null-id errors; "
        f"slowest batch {tally.slowest * 1000:.0f} ms; answers {dict(tally.codes)}; "
        f"shutdown took {tally.shutdown * 1000:.0f} ms"
    )
    assert tally.frames >= 3 * EXAMPLES  # about 4 frames and a probe per batch
    # Internal errors mean a handler raised on bad input instead of saying what is wrong.
    assert not tally.internal, "\n".join(tally.internal[:10])
