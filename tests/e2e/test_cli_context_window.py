"""The context window of a model the table does not know: asked of its server,
remembered per base URL, shown by the doctor; and, when nobody says, large enough
that 30 turns of reads never rewrite an earlier request."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

from agentls.providers.windows import server_key
from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAI, Reply, chat, status

TURNS = 30
LINE = "def helper_{i}_{k}(value):\n    return value * {k} + {i}\n"


def _files(workspace: Path) -> None:
    for i in range(TURNS):
        text = "".join(LINE.format(i=i, k=k) for k in range(60))[:2048]
        (workspace / f"f{i}.py").write_text(text, encoding="utf-8")


def _reader(body: Any) -> Reply:
    """Read the next file while fewer than TURNS results are in the request, then answer."""
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    usage = {"prompt_tokens": 100, "completion_tokens": 10}
    if done < TURNS:
        return chat(tool_calls=[(f"call_{done}", "read_file", {"path": f"f{done}.py"})],
                    usage=usage)  # fmt: skip
    return chat("All read.", usage=usage)


def _ask(cli: Cli, fake: FakeOpenAI, model: str) -> list[list[Any]]:
    proc = cli.run("ask", "read the files one by one", "--model", model, "--yes", "--json",
                   env={"OPENAI_BASE_URL": fake.base_url}, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["text"] == "All read."
    return [r.body["messages"] for r in fake.requests]


def _rewrites(requests: list[list[Any]]) -> list[int]:
    """The requests (by number) whose messages do not begin with the previous request's."""
    return [
        k for k in range(1, len(requests)) if requests[k][: len(requests[k - 1])] != requests[k - 1]
    ]


def test_an_unknown_model_never_rewrites_an_earlier_request(cli: Cli, workspace: Path) -> None:
    _files(workspace)
    with FakeOpenAI(responder=_reader) as fake:  # a server that says nothing of its window
        requests = _ask(cli, fake, "openai:gpt-5-codex")
        asked = {r.path for r in fake.side_requests}
    assert len(requests) == TURNS + 1
    assert _rewrites(requests) == []
    assert "/v1/models" in asked  # the server was asked, and did not say
    remembered = json.loads((cli.state / "context-windows.json").read_text())
    assert remembered[server_key(fake.base_url)]["gpt-5-codex"].keys() == {"at"}


def test_the_window_a_server_gives_is_used_and_remembered(cli: Cli, workspace: Path) -> None:
    _files(workspace)
    ollama = {("POST", "/api/show"): {"model_info": {"qwen2.context_length": 16_384}}}
    with FakeOpenAI(responder=_reader, static=ollama) as fake:
        requests = _ask(cli, fake, "openai:qwen2.5-coder:7b")
        shown = [r.body for r in fake.side_requests if r.path == "/api/show"]
    assert shown == [{"model": "qwen2.5-coder:7b"}]
    # 16,384 tokens hold fewer than 30 reads: old ones are elided, in steps some turns apart.
    steps = _rewrites(requests)
    assert steps and all(later - earlier >= 4 for earlier, later in pairwise(steps)), steps
    remembered = json.loads((cli.state / "context-windows.json").read_text())
    entry = remembered[server_key(fake.base_url)]["qwen2.5-coder:7b"]
    assert entry["tokens"] == 16_384 and entry["source"].startswith("Ollama /api/show")


def test_the_doctor_shows_the_window_and_where_it_came_from(cli: Cli) -> None:
    llama = {("GET", "/props"): {"default_generation_settings": {"n_ctx": 8192}}}
    with FakeOpenAI(static=llama) as fake:
        env = {"OPENAI_BASE_URL": fake.base_url}
        first = cli.run("doctor", "--model", "openai:local", env=env)
        report = json.loads(cli.run("doctor", "--model", "openai:local", "--json", env=env).stdout)
        props = [r.path for r in fake.side_requests if r.path == "/props"]
    assert f"8,192 tokens (llama.cpp /props at {fake.base_url})" in first.stdout, first.stdout
    assert props == ["/props"]  # asked once; the second doctor read the state folder
    assert report["model"]["contextWindow"]["tokens"] == 8192
    assert "remembered from" in report["model"]["contextWindow"]["source"]
    # The server gone, the answer stays; a model the table knows says so.
    again = cli.run("doctor", "--model", "openai:local", env=env)
    assert "8,192 tokens (llama.cpp /props" in again.stdout
    known = cli.run("doctor", "--model", "anthropic:claude-sonnet-4-5")
    assert "200,000 tokens (the model table)" in known.stdout
    assumed = cli.run("doctor", "--model", "openai:gpt-5-codex", env={"OPENAI_API_KEY": "k"})
    assert "200,000 tokens (assumed" in assumed.stdout


def test_a_window_assumed_too_large_is_corrected_by_the_too_long_recovery(
    cli: Cli, workspace: Path
) -> None:
    """The server says nothing, and its model holds 8,192 tokens: the first refusal names
    the window, the loop compacts once and retries, and later requests fit."""
    _files(workspace)
    limit = 8192
    refused: list[int] = []
    issued: list[int] = []

    def small_model(body: Any) -> Reply:
        tokens = len(json.dumps(body)) // 4
        if tokens > limit:
            refused.append(tokens)
            return status(400, message=(
                f"This model's maximum context length is {limit} tokens. However, your "
                f"messages resulted in {tokens} tokens."
            ), error_type="invalid_request_error")  # fmt: skip
        if not body.get("tools"):  # the compaction's summary call
            return chat("Summary: the first files were read.",
                        usage={"prompt_tokens": tokens, "completion_tokens": 10})  # fmt: skip
        # Counted here, not from the request: a compaction takes old results out of it.
        usage = {"prompt_tokens": tokens, "completion_tokens": 10}
        done = len(issued)
        if done < TURNS:
            issued.append(done)
            call = (f"call_{done}", "read_file", {"path": f"f{done}.py"})
            return chat(tool_calls=[call], usage=usage)
        return chat("All read.", usage=usage)

    with FakeOpenAI(responder=small_model) as fake:
        proc = cli.run("ask", "read the files one by one", "--model", "openai:gpt-5-codex",
                       "--yes", "--json", env={"OPENAI_BASE_URL": fake.base_url},
                       timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["text"] == "All read."
    assert len(refused) == 1  # once refused, then the named window is kept
