"""A kill -9 mid-run loses at most the line being written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentls.session.reader import read_events

WRITER = """
import sys
from pathlib import Path
from agentls.session.events import ToolResults
from agentls.session.log import SessionLog
from agentls.contracts.messages import user_text

log = SessionLog(Path(sys.argv[1]))
i = 0
while True:
    log.append(ToolResults(run="r1", turn=i, message=user_text("x" * (i % 700))))
    if i % 50 == 0:
        log.turn_boundary()
    i += 1
"""


def test_sigkilled_writer_leaves_every_complete_line_readable(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)])
    try:
        deadline = time.monotonic() + 30
        while not path.exists() or path.read_bytes().count(b"\n") < 500:
            assert child.poll() is None, "the writer died on its own"
            assert time.monotonic() < deadline, "the writer never wrote 500 lines"
            time.sleep(0.01)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL

    complete_lines = path.read_bytes().count(b"\n")
    events = read_events(path)
    assert len(events) == complete_lines >= 500
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [e.turn for e in events] == list(range(len(events)))
