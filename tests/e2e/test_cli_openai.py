"""`agentls ask --model openai:...` against the fake chat-completions server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAI, chat


def test_a_tool_round_trip_with_a_local_endpoint_and_no_key(cli: Cli, workspace: Path) -> None:
    (workspace / "a.py").write_text("print('a')\n")
    replies = [
        chat("Looking.", tool_calls=[("call_1", "list_files", {"pattern": "*.py"})],
             usage={"prompt_tokens": 900, "completion_tokens": 20}),
        chat("There is a.py.", usage={"prompt_tokens": 950, "completion_tokens": 5}),
    ]  # fmt: skip
    with FakeOpenAI(replies) as fake:
        proc = cli.run("ask", "list the python files", "--model", "openai:llama3.2", "--json",
                       env={"OPENAI_BASE_URL": fake.base_url})  # fmt: skip
        second = fake.requests[1].body
        headers = fake.requests[0].headers
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["text"] == "There is a.py."
    assert result["usage"]["inputTokens"] == 1850 and result["usage"]["costUsd"] is None
    tool_message = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool_message["tool_call_id"] == "call_1" and "a.py" in tool_message["content"]
    assert headers["authorization"] == "Bearer not-needed"


def test_openai_without_key_or_base_url_is_a_clear_error(cli: Cli) -> None:
    proc = cli.run("ask", "hi", "--model", "openai:gpt-4o-mini")
    assert proc.returncode == 2
    assert "OPENAI_API_KEY" in proc.stderr and "OPENAI_BASE_URL" in proc.stderr
    assert cli.session_files() == []


def test_a_cost_budget_for_an_unpriced_model_is_refused(cli: Cli) -> None:
    proc = cli.run("ask", "hi", "--model", "openai:llama3.2", "--max-cost", "1",
                   env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})  # fmt: skip
    assert proc.returncode == 2 and "maxCostUsd needs the price" in proc.stderr
