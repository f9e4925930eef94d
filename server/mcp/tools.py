"""An MCP server's tools as ToolDefinitions: `mcp__<server>__<tool>`, risk `external`.

What a tool returns is turned into plain text and handed back like any tool's
output: the runtime bounds it and masks secrets, and nothing in it reaches the
permission gate. Images, audio and binary resources are described, not dumped.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
)

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.mcp.config import McpServerConfig
from agentls.mcp.connection import McpConnection
from agentls.mcp.schema import ExternalArguments, arguments_model
from agentls.workspace.interface import ToolContext, ToolDefinition

PREFIX = "mcp"
MAX_NAME = 64  # what the model APIs accept for a tool name
MAX_DESCRIPTION = 4_000
MAX_SUMMARY = 120
MAX_DETAIL = 4_000
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def exposed_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, with what the APIs refuse replaced and long names hashed."""
    raw = f"{PREFIX}__{server}__{tool}"
    name = _UNSAFE.sub("_", raw)
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(raw.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
    return name


def canonical_json(arguments: Any) -> str:
    """The arguments as rules see them: sorted keys, no spaces (`{"a":1,"b":"x"}`)."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Exposed:
    """A server's tool and the definition the model sees for it."""

    remote: Tool
    definition: ToolDefinition[Any]


def definitions(connection: McpConnection) -> tuple[list[Exposed], list[str]]:
    """The server's tools the model may see, and a note for each one left out."""
    found: list[Exposed] = []
    notes: list[str] = []
    taken: set[str] = set()
    for tool in connection.tools:
        name = exposed_name(connection.name, tool.name)
        if name in taken:
            notes.append(
                f"MCP server {connection.name!r}: tool {tool.name!r} left out ({name} "
                "is taken by another of its tools)"
            )
            continue
        schema = dict(tool.input_schema)
        schema.setdefault("type", "object")
        try:
            model = arguments_model(name, schema)
        except ValueError as exc:
            notes.append(f"MCP server {connection.name!r}: tool {tool.name!r} left out: {exc}")
            continue
        taken.add(name)
        found.append(Exposed(tool, _definition(connection, tool, name, schema, model)))
    return found, notes


def _definition(
    connection: McpConnection,
    tool: Tool,
    name: str,
    schema: dict[str, Any],
    model: type[ExternalArguments],
) -> ToolDefinition[ExternalArguments]:
    server, remote = connection.name, tool.name

    async def call(arguments: dict[str, Any]) -> ToolOutput:
        result = await connection.call(remote, arguments)
        text = result_text(result)
        if result.is_error:
            raise ToolError(
                ErrorCode.EXECUTION_FAILED, f"{remote} on MCP server {server!r} failed: {text}"
            )
        return ToolOutput(text, {"mcpServer": server, "mcpTool": remote})

    annotations = tool.annotations
    return external_definition(
        name=name,
        description=_description(server, tool),
        schema=schema,
        model=model,
        subject_argument=connection.config.subject_argument,
        where=f"MCP server {server!r} ({connection.config.target()}), tool {remote!r}",
        read_only=bool(annotations is not None and annotations.read_only_hint),
        call=call,
    )


def external_definition(
    *,
    name: str,
    description: str,
    schema: dict[str, Any],
    model: type[ExternalArguments],
    subject_argument: str | None,
    where: str,
    read_only: bool,
    call: Callable[[dict[str, Any]], Awaitable[ToolOutput]],
) -> ToolDefinition[ExternalArguments]:
    """An external tool as the gate and the model see it: risk `external`, its subject the
    configured argument or the canonical JSON of all of them."""

    async def run(args: ExternalArguments, context: ToolContext) -> ToolOutput:
        return await call(args.arguments)

    def subject(args: ExternalArguments) -> str:
        if subject_argument is not None:
            value = args.arguments.get(subject_argument)
            if isinstance(value, str):
                return value
        return canonical_json(args.arguments)

    def summary(args: ExternalArguments) -> str:
        line = f"{name} {canonical_json(args.arguments)}"
        return line if len(line) <= MAX_SUMMARY else line[: MAX_SUMMARY - 1] + "…"

    async def detail(args: ExternalArguments, context: ToolContext) -> str:
        shown = json.dumps(args.arguments, indent=2, ensure_ascii=False)
        if len(shown) > MAX_DETAIL:
            shown = shown[:MAX_DETAIL] + "\n… (cut)"
        return f"{where}, arguments:\n{shown}"

    return ToolDefinition(
        name=name,
        description=description,
        input_model=model,
        risk=Risk.EXTERNAL,
        run=run,
        subject_kind="text",
        subject=subject,
        summary=summary,
        detail=detail,
        json_schema=schema,
        read_only_hint=read_only,
    )


def recorded_definition(
    name: str,
    servers: Mapping[str, McpServerConfig],
    call: Callable[[dict[str, Any]], Awaitable[ToolOutput]],
) -> ToolDefinition[ExternalArguments]:
    """An MCP tool known only from a session log (for replay): any arguments, the subject
    its server's settings name, and ``call`` giving what was recorded."""
    server = max(
        (s for s in servers if name.startswith(_UNSAFE.sub("_", f"{PREFIX}__{s}__"))),
        key=len,
        default=None,
    )
    schema: dict[str, Any] = {"type": "object"}
    return external_definition(
        name=name,
        description=f"(A tool of the MCP server {server!r}, as recorded.)",
        schema=schema,
        model=arguments_model(name, schema),
        subject_argument=servers[server].subject_argument if server is not None else None,
        where=f"MCP server {server!r} (recorded), tool {name!r}",
        read_only=False,
        call=call,
    )


def _description(server: str, tool: Tool) -> str:
    text = (tool.description or tool.title or "").strip()
    if len(text) > MAX_DESCRIPTION:
        text = text[:MAX_DESCRIPTION] + "…"
    origin = f"(Tool {tool.name!r} of the MCP server {server!r}.)"
    return f"{text}\n\n{origin}" if text else origin


def result_text(result: CallToolResult) -> str:
    """A tool result as text: text as it is, everything else described in a line."""
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ImageContent | AudioContent):
            kind = "image" if isinstance(block, ImageContent) else "audio"
            parts.append(
                f"[{kind}: {block.mime_type}, {_decoded_size(block.data):,} bytes, not shown]"
            )
        elif isinstance(block, ResourceLink):
            parts.append(f"[resource link: {block.uri}{f' ({block.name})' if block.name else ''}]")
        elif isinstance(block, EmbeddedResource):
            parts.append(_resource_text(block.resource))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    return "\n".join(parts) if parts else "(no output)"


def _resource_text(resource: TextResourceContents | BlobResourceContents) -> str:
    if isinstance(resource, TextResourceContents):
        return f"[resource {resource.uri}]\n{resource.text}"
    mime = resource.mime_type or "binary"
    return f"[resource {resource.uri}: {mime}, {_decoded_size(resource.blob):,} bytes, not shown]"


def _decoded_size(base64_text: str) -> int:
    return len(base64_text) * 3 // 4
