"""A session/prompt's content blocks as the one text prompt the core takes.

Text is kept as written; a resource link names the file (the model reads it
with its tools, through the client's buffers); an embedded resource is
included with its URI. The core's prompts are text, so images and audio are
not advertised; one sent anyway is named, not silently dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)


def prompt_text(blocks: Sequence[Any], root: Path) -> str:
    parts = [_block_text(block, root) for block in blocks]
    return "\n\n".join(part for part in parts if part)


def _block_text(block: Any, root: Path) -> str:
    if isinstance(block, TextContentBlock):
        return block.text
    if isinstance(block, ResourceContentBlock):
        return f"[the person points at {_where(block.uri, root)}]"
    if isinstance(block, EmbeddedResourceContentBlock):
        resource = block.resource
        where = _where(resource.uri, root)
        if isinstance(resource, TextResourceContents):
            return f'<context source="{where}">\n{resource.text}\n</context>'
        return f"[{where}: binary content ({resource.mime_type or 'unknown type'}) not included]"
    if isinstance(block, ImageContentBlock | AudioContentBlock):
        kind = "an image" if isinstance(block, ImageContentBlock) else "audio"
        return f"[{kind} was attached, but agentls passes the model text only]"
    return ""


def _where(uri: str, root: Path) -> str:
    """A file inside the workspace as its relative path; anything else as its URI."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = Path(unquote(parsed.path))
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
