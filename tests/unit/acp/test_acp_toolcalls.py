"""A tool call's location in the ACP client: the path the model named, under the root."""

from __future__ import annotations

import os
from pathlib import Path

from agentls.acp.toolcalls import kind_of, locations, permission_title


def test_a_location_is_the_named_path_under_the_root(tmp_path: Path) -> None:
    (found,) = locations(tmp_path, {"path": "src/../pkg/a.py", "offset": 3}) or []
    assert (found.path, found.line) == (str(tmp_path / "pkg" / "a.py"), 3)
    assert locations(tmp_path, {"pattern": "x"}) is None


def test_a_symlink_loop_still_has_its_location(tmp_path: Path) -> None:
    os.symlink("loop", tmp_path / "loop")  # resolving it raises: the client still sees the call
    (found,) = locations(tmp_path, {"path": "loop"}) or []
    assert found.path == str(tmp_path / "loop")


def test_a_request_title_is_what_a_person_decides_on() -> None:
    assert permission_title("run_command", {"command": "pytest -q\necho done"}, "s") == (
        "pytest -q …"
    )
    assert permission_title("edit_file", {"path": "./src/greet.py"}, "s") == "Edit src/greet.py"
    assert permission_title("read_file", {"path": ".env"}, "s") == "Read .env"
    assert permission_title("mcp__test__add", {"a": 1}, "mcp__test__add a=1") == (
        "mcp__test__add a=1"
    )
    assert kind_of("rename") == "edit" and kind_of("definition") == "search"
