"""The protocol's JSON Schema, generated from the models: docs/protocol.schema.json.

    python -m agentls.protocol.schema > docs/protocol.schema.json

Parameters are described as clients send them, results and events as the
server writes them. The session log's events (`SessionEvent` in
`agentls.session.events`, once it is there) join under `sessionLog`, each of
their definitions named with a `Log` prefix, so that a log event and an
`agentls/event` of the same name stay apart.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from agentls.protocol.commands import COMMANDS
from agentls.protocol.events import EVENT_METHOD, AgentEvent

REF = "#/$defs/{model}"
LOG_PREFIX = "Log"
LOG_REF = f"#/$defs/{LOG_PREFIX}{{model}}"
TITLE = "agentls language-server protocol"
DESCRIPTION = (
    "The `agentls/event` notification and the `agentls.*` commands of `agentls serve` "
    "(docs/protocol.md). Generated from agentls.protocol: do not edit."
)
Entry = tuple[str, JsonSchemaMode, TypeAdapter[Any]]


def session_events() -> TypeAdapter[Any] | None:
    """The session log's event union, once the session package defines one."""
    found = getattr(importlib.import_module("agentls.session.events"), "SessionEvent", None)
    if found is None or isinstance(found, TypeAdapter):
        return found
    return TypeAdapter(found)


def _without_field_titles(definitions: dict[str, Any]) -> None:
    """Titles pydantic makes from field names ("Sessionid") say nothing the key does not."""
    for definition in definitions.values():
        for field in definition.get("properties", {}).values():
            field.pop("title", None)


def build_schema() -> dict[str, Any]:
    entries: list[Entry] = [("event", "serialization", TypeAdapter(AgentEvent))]
    for name, command in COMMANDS.items():
        if command.params is not None:
            entries.append((f"{name} params", "validation", TypeAdapter(command.params)))
        entries.append((f"{name} result", "serialization", TypeAdapter(command.result)))
    schemas, definitions = TypeAdapter.json_schemas(entries, ref_template=REF)
    found = {key: schema for (key, _mode), schema in schemas.items()}
    definitions = dict(definitions.get("$defs", {}))
    _without_field_titles(definitions)
    definitions["AgentEvent"] = found["event"]
    commands: dict[str, Any] = {}
    for name, command in COMMANDS.items():
        entry: dict[str, Any] = {"type": "object", "properties": {}}
        if command.params is not None:
            entry["properties"]["params"] = found[f"{name} params"]
            entry["required"] = ["params"]
        entry["properties"]["result"] = found[f"{name} result"]
        if command.argument_optional:
            entry["argumentOptional"] = True
        commands[name] = entry
    properties: dict[str, Any] = {
        "notifications": {
            "type": "object",
            "properties": {EVENT_METHOD: {"$ref": REF.format(model="AgentEvent")}},
        },
        "commands": {"type": "object", "properties": commands},
    }
    session = session_events()
    if session is not None:
        log = session.json_schema(mode="serialization", ref_template=LOG_REF)
        log_definitions = {LOG_PREFIX + name: d for name, d in log.pop("$defs", {}).items()}
        _without_field_titles({**log_definitions, "": log})
        definitions |= log_definitions
        definitions[f"{LOG_PREFIX}Event"] = log
        properties["sessionLog"] = {"$ref": REF.format(model=f"{LOG_PREFIX}Event")}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": TITLE,
        "description": DESCRIPTION,
        "type": "object",
        "properties": properties,
        "$defs": dict(sorted(definitions.items())),
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
