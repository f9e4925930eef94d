"""`agentls ask --reasoning`, `--show-thinking` and `--image` as a subprocess against the
fake model servers: what the servers receive, what the terminal shows, what the log and
the session's folder keep."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.fakes.openai_server import FakeOpenAI, chat
from tests.helpers import gif, png

SONNET = "anthropic:claude-sonnet-4-5"  # enabled thinking with a budget, interleaving by header
OPUS = "anthropic:claude-opus-4-6"  # adaptive thinking with an effort


def ask(
    cli: Cli, fake: FakeAnthropic, model: str, prompt: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}
    return cli.run("ask", prompt, "--model", model, *extra, env=env)


def assistant_turns(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [m["content"] for m in body["messages"] if m["role"] == "assistant"]


def test_a_budget_level_sends_enabled_thinking_and_the_blocks_come_back_unchanged(
    cli: Cli, workspace: Path
) -> None:
    replies = [
        turn("Let me look.", thinking="List first.", signature="sig-1/+=", redacted_thinking="Rd==",
             tool_calls=[("toolu_1", "list_files", {})], thinking_tokens=12),
        turn("Nothing here.", thinking="Empty.", signature="sig-2"),
    ]  # fmt: skip
    with FakeAnthropic(replies) as fake:
        proc = ask(cli, fake, SONNET, "what is here?", "--reasoning", "medium")
        first, second = fake.requests
    assert proc.returncode == 0, proc.stderr
    for request in (first, second):  # the same on every turn of the run
        assert request.body["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
        assert request.body["max_tokens"] == 8192 + 10_000
        assert request.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
        assert "output_config" not in request.body  # Sonnet 4.5 takes no effort
    (sent_back,) = assistant_turns(second.body)
    assert sent_back[:2] == [
        {"type": "thinking", "thinking": "List first.", "signature": "sig-1/+="},
        {"type": "redacted_thinking", "data": "Rd=="},
    ]
    assert "List first." not in proc.stderr and "thinking:" not in proc.stderr
    assert "(12 thinking)" in proc.stderr
    requests = [e for e in cli.events() if e["kind"] == "model_request"]
    assert [e["reasoning"] for e in requests] == ["medium", "medium"]


def test_a_model_that_takes_effort_gets_adaptive_thinking_and_no_budget(
    cli: Cli, workspace: Path
) -> None:
    with FakeAnthropic([turn("Done.", thinking="", signature="sig-omitted")]) as fake:
        proc = ask(cli, fake, OPUS, "think hard", "--reasoning", "high")
        (request,) = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert request.body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert request.body["output_config"] == {"effort": "high"}
    assert request.body["max_tokens"] == 8192 + 32_000
    assert "anthropic-beta" not in request.headers


def test_without_a_level_nothing_about_thinking_is_sent(cli: Cli, workspace: Path) -> None:
    with FakeAnthropic([turn("Hi.")]) as fake:
        proc = ask(cli, fake, SONNET, "hi")
        (request,) = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert "thinking" not in request.body and request.body["max_tokens"] == 8192


def test_show_thinking_prints_the_thoughts_on_stderr(cli: Cli, workspace: Path) -> None:
    thought = "First \x1b[2Jclear, then answer."
    with FakeAnthropic([turn("The answer.", thinking=thought)]) as fake:
        proc = ask(cli, fake, SONNET, "q", "--reasoning", "low", "--show-thinking")
    assert proc.returncode == 0, proc.stderr
    assert "thinking: First \\x1b[2Jclear, then answer.\n" in proc.stderr  # shown, not obeyed
    assert "First" not in proc.stdout and proc.stdout.strip() == "The answer."


def test_a_level_the_model_cannot_take_is_refused_before_anything_is_sent(
    cli: Cli, workspace: Path
) -> None:
    with FakeAnthropic([turn("never")]) as fake:
        proc = ask(cli, fake, "anthropic:claude-3-5-haiku-latest", "q", "--reasoning", "high")
        assert fake.requests == []
    assert proc.returncode == 2
    assert "does not mark as a reasoning model" in proc.stderr
    assert cli.session_files() == []


def test_openai_gets_reasoning_effort_and_streamed_thoughts_are_logged(
    cli: Cli, workspace: Path
) -> None:
    replies = [chat("Fine.", reasoning="Weighing it.",
                    usage={"prompt_tokens": 50, "completion_tokens": 30,
                           "completion_tokens_details": {"reasoning_tokens": 20}})]  # fmt: skip
    with FakeOpenAI(replies) as fake:
        proc = cli.run("ask", "q", "--model", "openai:gpt-5", "--reasoning", "low",
                       "--show-thinking", env={"OPENAI_BASE_URL": fake.base_url})  # fmt: skip
        (request,) = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert request.body["reasoning_effort"] == "low"
    assert request.body["max_completion_tokens"] == 8192 + 4_000
    assert "max_tokens" not in request.body
    assert "thinking: Weighing it." in proc.stderr and "(20 thinking)" in proc.stderr
    (output,) = [e for e in cli.events() if e["kind"] == "model_output"]
    assert output["message"]["content"][0] == {
        "type": "thinking", "thinking": "Weighing it.", "signature": ""
    }  # fmt: skip


def test_a_local_server_gets_the_level_only_when_asked(cli: Cli, workspace: Path) -> None:
    with FakeOpenAI([chat("a"), chat("b")]) as fake:
        env = {"OPENAI_BASE_URL": fake.base_url}
        plain = cli.run("ask", "q", "--model", "openai:qwen3", env=env)
        asked = cli.run("ask", "q", "--model", "openai:qwen3", "--reasoning", "off", env=env)
        first, second = (r.body for r in fake.requests)
    assert plain.returncode == 0 and asked.returncode == 0, plain.stderr + asked.stderr
    assert "reasoning_effort" not in first and first["max_tokens"] == 8192
    assert second["reasoning_effort"] == "none"


def test_an_image_arrives_as_an_image_block_and_a_resumed_session_still_sends_it(
    cli: Cli, workspace: Path
) -> None:
    picture, other = png(6, 4), png(2, 2, shade=200)
    (workspace / "shot.png").write_bytes(picture)
    (workspace / "icon.dat").write_bytes(other)  # named as no image: the bytes say PNG
    with FakeAnthropic([turn("Two grey boxes."), turn("Still two.")]) as fake:
        proc = ask(cli, fake, SONNET, "what are these?", "--image", "shot.png",
                   "--image", "icon.dat", "--json")  # fmt: skip
        session = json.loads(proc.stdout)["sessionId"]
        again = ask(cli, fake, SONNET, "and now?", "--session", session)
        first, second = (r.body for r in fake.requests)
    assert proc.returncode == 0 and again.returncode == 0, proc.stderr + again.stderr
    shot, icon, words = first["messages"][0]["content"]
    assert shot["source"] == {
        "type": "base64", "media_type": "image/png", "data": base64.b64encode(picture).decode()
    }  # fmt: skip
    assert icon["source"]["data"] == base64.b64encode(other).decode()
    assert words["text"] == "what are these?"
    assert second["messages"][0] == first["messages"][0] | {"content": [shot, icon, words]}
    digest = hashlib.sha256(picture).hexdigest()
    folder = cli.state / "sessions" / session / "images"
    assert (folder / digest).read_bytes() == picture
    (prompt,) = [e for e in cli.events() if e["kind"] == "user_message"][:1]
    assert prompt["message"]["content"][0] == {
        "type": "image", "mediaType": "image/png", "sha256": digest, "size": len(picture),
        "width": 6, "height": 4,
    }  # fmt: skip
    assert base64.b64encode(picture).decode() not in cli.session_files()[0].read_text()
    shown = cli.run("show", session)
    assert f"(image: png, 6x4, {digest[:12]})" in shown.stdout


def test_a_refused_image_sends_nothing_and_says_why(cli: Cli, workspace: Path) -> None:
    (workspace / "notes.png").write_text("just text, named as a picture\n")
    (workspace / "big.png").write_bytes(png(1, 1) + b"\0" * (4 * 1024 * 1024))
    (workspace / "anim.gif").write_bytes(gif(frames=3))
    (workspace / "ok.png").write_bytes(png())
    cases = [
        (SONNET, "notes.png", "is not a PNG, JPEG, GIF or WebP image"),
        (SONNET, "big.png", "the Anthropic API takes images up to 3.75 MB"),
        (SONNET, "missing.png", "cannot read the image"),
        ("anthropic:claude-3-5-haiku-latest", "ok.png", "does not take images"),
    ]
    with FakeAnthropic([turn("never")]) as fake:
        for model, name, why in cases:
            proc = ask(cli, fake, model, "look", "--image", name)
            assert proc.returncode == 2 and why in proc.stderr, (name, proc.stderr)
        assert fake.requests == []
    with FakeOpenAI([chat("never")]) as fake:
        proc = cli.run("ask", "look", "--model", "openai:gpt-4o", "--image", "anim.gif",
                       env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": fake.base_url})  # fmt: skip
        assert fake.requests == []
    assert proc.returncode == 2 and "animated GIF" in proc.stderr
    assert cli.session_files() == []
    assert not (cli.state / "sessions").exists() or not list((cli.state / "sessions").iterdir())


def test_an_image_goes_to_openai_as_a_data_url(cli: Cli, workspace: Path) -> None:
    picture = png(3, 3)
    (workspace / "a.png").write_bytes(picture)
    with FakeOpenAI([chat("A square.")]) as fake:
        proc = cli.run("ask", "what?", "--model", "openai:gpt-4o", "--image", "a.png",
                       env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": fake.base_url})  # fmt: skip
        (request,) = fake.requests
    assert proc.returncode == 0, proc.stderr
    user = next(m for m in request.body["messages"] if m["role"] == "user")
    url = "data:image/png;base64," + base64.b64encode(picture).decode()
    assert user["content"] == [
        {"type": "image_url", "image_url": {"url": url}},
        {"type": "text", "text": "what?"},
    ]


def test_the_doctor_says_the_reasoning_level_in_use(cli: Cli, workspace: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "test-key"}
    report = cli.run("doctor", "--model", OPUS, "--json", env=env)
    plain = cli.run("doctor", "--model", "openai:gpt-5", env={"OPENAI_API_KEY": "k"})
    assert report.returncode == 0, report.stderr
    model = json.loads(report.stdout)["model"]
    assert model["reasoning"] == {
        "level": "off", "chosen": False, "detail": "off (the model's default)"
    }  # fmt: skip
    assert model["images"] is True
    assert re.search(r"^reasoning +medium \(the model's default\)$", plain.stdout, re.M)


def test_replay_shows_the_model_the_same_image_and_names_one_that_is_gone(
    cli: Cli, workspace: Path
) -> None:
    picture = png(3, 2)
    (workspace / "a.png").write_bytes(picture)
    with FakeAnthropic([turn("Reading.", tool_calls=[("toolu_1", "list_files", {})]),
                        turn("A small image.")]) as fake:  # fmt: skip
        proc = ask(cli, fake, SONNET, "look", "--image", "a.png", "--reasoning", "low", "--json")
    session = json.loads(proc.stdout)["sessionId"]
    same = cli.run("replay", session)
    assert same.returncode == 0 and "the runtime made the same decisions" in same.stdout
    assert "images gone" not in same.stdout
    digest = hashlib.sha256(picture).hexdigest()
    (cli.state / "sessions" / session / "images" / digest).unlink()
    gone = cli.run("replay", session)
    assert f"images gone from the session's folder: {digest}" in gone.stdout
