"""One run of one agent on the task: its requests recorded, its time, CPU and memory taken.

The agent is a child process; its CPU is what ``wait4`` reports for it and the
descendants it waited for; its memory is the peak of its process tree's summed
RSS, sampled every 20 ms from /proc.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.bench.peers.agents import FILES, FINAL_TEXT, Agent, Paths, results_in, tool_names
from tests.bench.peers.wire import Conversation
from tests.fakes import anthropic_replies, openai_replies, responses_replies
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.http_fake import FakeServer
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.responses_server import FakeResponses

_PAGE = os.sysconf("SC_PAGE_SIZE")
RUN_TIMEOUT = 180.0


@dataclass(frozen=True)
class RunFigures:
    to_first_request: float
    whole: float
    cpu: float
    peak_rss_mib: float
    conversation: Conversation
    reads: int


def _reply(api: str, text: str | None, call: tuple[str, str, dict[str, Any]] | None) -> Any:
    calls = [call] if call else []
    if api == "anthropic":
        return anthropic_replies.turn(text, tool_calls=calls, usage={"input_tokens": 10})
    if api == "chat":
        usage = {"prompt_tokens": 10, "completion_tokens": 5}
        return openai_replies.chat(text, tool_calls=calls, usage=usage)
    return responses_replies.respond(text, tool_calls=calls)


def fake_for(agent: Agent, paths_of: list[Paths]) -> FakeServer[Any]:
    """A fake that answers each request of the task from what it holds: the next read
    while fewer than ten results are in it (and the read tool is offered), else the answer."""

    def responder(body: Any) -> Any:
        done = results_in(agent.api, body)
        if done < FILES and agent.read_tool in tool_names(agent.api, body):
            name, args = agent.read_call(paths_of[0], done)
            return _reply(agent.api, None, (f"call_{done:02d}", name, args))
        return _reply(agent.api, FINAL_TEXT, None)

    kinds: dict[str, type[FakeServer[Any]]] = {
        "anthropic": FakeAnthropic, "chat": FakeOpenAI, "responses": FakeResponses,
    }  # fmt: skip
    return kinds[agent.api](responder=responder)


def tree_rss(root: int) -> int:
    """Bytes of RSS summed over ``root`` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * _PAGE
        except OSError:
            pass
        todo.extend(children.get(pid, ()))
    return total


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_with_children(pid: int) -> float:
    """Seconds of CPU a process and the children it has reaped used (/proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / _TICK  # utime stime cutime cstime


def has_children(pid: int) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    if int(stat.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        return True
            except OSError:
                continue
    return False


def helpers_done(helpers: list[int], timeout: float = 10.0) -> None:
    """Until the helpers have reaped the children that ran this run (their CPU is in)."""
    deadline = time.monotonic() + timeout
    while any(has_children(h) for h in helpers) and time.monotonic() < deadline:
        time.sleep(0.01)


class PeakSampler(threading.Thread):
    def __init__(self, *pids: int) -> None:
        super().__init__(daemon=True)
        self.pids, self.peak = pids, 0
        self._stop_now = threading.Event()

    def run(self) -> None:
        while not self._stop_now.wait(0.02):
            self.peak = max(self.peak, sum(tree_rss(pid) for pid in self.pids))

    def stop(self) -> int:
        self._stop_now.set()
        self.join()
        return self.peak


def run_once(agent: Agent, workspace: Path, home: Path, agents: Path, guard_url: str) -> RunFigures:
    shutil.rmtree(home, ignore_errors=True)
    (home / "tmp").mkdir(parents=True)
    holder: list[Paths] = []
    with fake_for(agent, holder) as fake:
        paths = Paths(workspace, home, agents, fake.base_url, guard_url)
        holder.append(paths)
        agent.prepare(paths)
        out = (home / "stdout").open("wb")
        err = (home / "stderr").open("wb")
        helpers = agent.helpers()
        helpers_cpu = sum(cpu_with_children(h) for h in helpers)
        started = time.perf_counter()
        child = subprocess.Popen(
            agent.command(paths), cwd=workspace, env=agent.environment(paths),
            stdin=subprocess.DEVNULL, stdout=out, stderr=err,
        )  # fmt: skip
        sampler = PeakSampler(child.pid, *helpers)
        sampler.start()
        timer = threading.Timer(RUN_TIMEOUT, child.kill)
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        ended = time.perf_counter()
        timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        peak = sampler.stop()
        helpers_done(helpers)
        helpers_cpu = sum(cpu_with_children(h) for h in helpers) - helpers_cpu
        out.close()
        err.close()
        main = [
            (r, at)
            for r, at in zip(fake.requests, fake.arrivals, strict=True)
            if r.path.split("?")[0] == fake.route
        ]
    if child.returncode != 0 or not main:
        tail = (home / "stderr").read_text(errors="replace")[-600:]
        raise RuntimeError(f"{agent.name} exited {child.returncode}: {tail}")
    conversation = Conversation(
        agent.api,
        [r.body for r, _ in main],
        [int(r.headers.get("content-length") or 0) for r, _ in main],
    )
    return RunFigures(
        to_first_request=main[0][1] - started,
        whole=ended - started,
        cpu=usage.ru_utime + usage.ru_stime + helpers_cpu,
        peak_rss_mib=peak / 2**20,
        conversation=conversation,
        reads=results_in(agent.api, main[-1][0].body),
    )


def time_command(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=True)
    return time.perf_counter() - started
