"""The protocol models load with the first command, not before `initialize` is answered
(building them is a good part of a start-up budget)."""

from __future__ import annotations

import json
import subprocess
import sys


def test_building_the_language_server_loads_no_protocol_model() -> None:
    probe = (
        "from agentls.lsp.main import build_server\nbuild_server()\n"
        "import json, sys\nprint(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    loaded = json.loads(out)
    assert [m for m in loaded if m.startswith("agentls.protocol")] == []
