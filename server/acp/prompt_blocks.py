"""A session/prompt's content blocks as the parts of a prompt (`conversation/prompt_context.py`).

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

from agentls.conversation.prompt_context import (
    Included,
    NotIncluded,
    Pointer,
    PointsAt,
    prompt_with_context,
)


def prompt_text(blocks: Sequence[Any], root: Path) -> str:
    return prompt_with_context([_part(block, root) for block in blocks])


def plain_text(blocks: Sequence[Any]) -> str | None:
    """The prompt of text blocks only, with no path to look up (so no thread to wait
    for); None when a block points somewhere."""
    if not all(isinstance(block, TextContentBlock) for block in blocks):
        return None
    return prompt_with_context([block.text for block in blocks])


def _part(block: Any, root: Path) -> str | Pointer:
    if isinstance(block, TextContentBlock):
        return block.text
    if isinstance(block, ResourceContentBlock):
        return PointsAt(_where(block.uri, root))
    if isinstance(block, EmbeddedResourceContentBlock):
        resource = block.resource
        where = _where(resource.uri, root)
        if isinstance(resource, TextResourceContents):
            return Included(where, resource.text)
        kind = resource.mime_type or "unknown type"
        return NotIncluded(f"{where}: binary content ({kind}) not included")
    if isinstance(block, ImageContentBlock | AudioContentBlock):
        kind = "an image" if isinstance(block, ImageContentBlock) else "audio"
        return NotIncluded(f"{kind} was attached, but agentls passes the model text only")
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
