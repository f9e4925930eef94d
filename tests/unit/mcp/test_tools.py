"""MCP tools as ToolDefinitions: names, schemas, subjects, and results as text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
)
from pydantic import ValidationError

from agentls.contracts.tooling import Risk
from agentls.mcp.config import McpServerConfig
from agentls.mcp.connection import McpConnection
from agentls.mcp.tools import canonical_json, definitions, exposed_name, result_text
from agentls.permissions.modes import Mode
from agentls.runtime.registry import ToolRegistry
from agentls.runtime.shaping import describe_validation_error

SCHEMA = {
    "type": "object",
    "properties": {"repo": {"type": "string"}, "count": {"type": "integer"}},
    "required": ["repo"],
    "additionalProperties": False,
}


def connection(*tools: Tool, **config: Any) -> McpConnection:
    conn = McpConnection("gh", McpServerConfig(command="x", **config), Path("/"), print)
    conn.tools = list(tools)
    return conn


def test_names_are_prefixed_safe_and_short() -> None:
    assert exposed_name("github", "create_issue") == "mcp__github__create_issue"
    assert exposed_name("fs", "read.file/v2") == "mcp__fs__read_file_v2"
    long_a, long_b = exposed_name("s", "x" * 80 + "a"), exposed_name("s", "x" * 80 + "b")
    assert len(long_a) == 64 and long_a != long_b and long_a.startswith("mcp__s__xxx")


def test_definitions_keep_the_servers_schema_and_hints() -> None:
    tools, notes = definitions(connection(
        Tool(name="create_issue", description="Open an issue.", input_schema=SCHEMA),
        Tool(name="search", input_schema={"properties": {}},
             annotations=ToolAnnotations(read_only_hint=True)),
    ))  # fmt: skip
    assert not notes
    create, search = (t.definition for t in tools)
    assert create.name == "mcp__gh__create_issue" and create.risk is Risk.EXTERNAL
    assert create.input_schema() == SCHEMA
    assert (
        create.description.startswith("Open an issue.") and "MCP server 'gh'" in create.description
    )
    assert search.input_schema()["type"] == "object"  # added where the server left it out
    assert search.read_only_hint and not create.read_only_hint
    registry = ToolRegistry([create, search])
    assert [s.name for s in registry.specs(Mode.PLAN)] == ["mcp__gh__search"]
    assert len(registry.specs(Mode.DEFAULT)) == 2


def test_input_is_checked_against_the_schema() -> None:
    (tool,), _ = definitions(connection(Tool(name="create_issue", input_schema=SCHEMA)))
    model = tool.definition.input_model
    assert model.model_validate({"repo": "a", "count": 2}).arguments == {"repo": "a", "count": 2}
    with pytest.raises(ValidationError) as caught:
        model.model_validate({"count": "two", "extra": 1})
    message = describe_validation_error("mcp__gh__create_issue", caught.value)
    assert "'repo' is a required property" in message
    assert "count: 'two' is not of type 'integer'" in message
    assert "'extra' was unexpected" in message


def test_tools_with_broken_schemas_or_clashing_names_are_left_out_with_a_note() -> None:
    tools, notes = definitions(connection(
        Tool(name="ok", input_schema=SCHEMA),
        Tool(name="broken", input_schema={"type": "object", "properties": {"a": {"type": 7}}}),
        Tool(name="a.b", input_schema=SCHEMA),
        Tool(name="a/b", input_schema=SCHEMA),
    ))  # fmt: skip
    assert [t.remote.name for t in tools] == ["ok", "a.b"]
    assert "'broken' left out: its input schema is not valid JSON Schema" in notes[0]
    assert "'a/b' left out (mcp__gh__a_b is taken" in notes[1]


def test_subject_summary_and_detail() -> None:
    (plain,), _ = definitions(connection(Tool(name="create_issue", input_schema=SCHEMA)))
    args = plain.definition.input_model.model_validate({"repo": "me/x", "count": 1})
    assert plain.definition.subject(args) == '{"count":1,"repo":"me/x"}'
    assert plain.definition.summary(args) == 'mcp__gh__create_issue {"count":1,"repo":"me/x"}'
    (chosen,), _ = definitions(
        connection(Tool(name="create_issue", input_schema=SCHEMA), subject_argument="repo")
    )
    assert chosen.definition.subject(args) == "me/x"
    no_repo = chosen.definition.input_model.model_validate({"repo": "r"})
    assert chosen.definition.subject(no_repo) == "r"
    assert canonical_json({"b": [1, {"z": "é"}], "a": None}) == '{"a":null,"b":[1,{"z":"é"}]}'


async def test_detail_shows_the_server_and_the_arguments() -> None:
    (tool,), _ = definitions(connection(Tool(name="create_issue", input_schema=SCHEMA)))
    args = tool.definition.input_model.model_validate({"repo": "me/x"})
    assert tool.definition.detail is not None
    detail = await tool.definition.detail(args, None)  # type: ignore[arg-type]
    assert detail.startswith("MCP server 'gh' (x), tool 'create_issue', arguments:")
    assert '"repo": "me/x"' in detail


def test_results_become_text() -> None:
    result = CallToolResult(content=[
        TextContent(text="hello"),
        ImageContent(data="A" * 400, mime_type="image/png"),
        AudioContent(data="A" * 8, mime_type="audio/wav"),
        ResourceLink(uri="file:///a.txt", name="a.txt"),
        EmbeddedResource(resource=TextResourceContents(uri="file:///b.txt", text="inside")),
        EmbeddedResource(resource=BlobResourceContents(uri="file:///c.bin", blob="AAAA")),
    ])  # fmt: skip
    assert result_text(result).splitlines() == [
        "hello",
        "[image: image/png, 300 bytes, not shown]",
        "[audio: audio/wav, 6 bytes, not shown]",
        "[resource link: file:///a.txt (a.txt)]",
        "[resource file:///b.txt]",
        "inside",
        "[resource file:///c.bin: binary, 3 bytes, not shown]",
    ]
    assert result_text(CallToolResult(content=[], structured_content={"n": 1})) == '{\n  "n": 1\n}'
    assert result_text(CallToolResult(content=[])) == "(no output)"
