"""A session/prompt's content blocks as the parts of a prompt (`conversation/prompt_context.py`)
and its images.

Text is kept as written; a resource link names the file (the model reads it
with its tools, through the client's buffers); an embedded resource is
included with its URI. Image blocks (`promptCapabilities.image`) are handed to
the conversation as their decoded bytes, which it checks against the model;
audio is not advertised, and a clip sent anyway is named, not silently dropped.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field
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
from agentls.conversation.prompt_images import PromptImage


class BadImage(ValueError):
    """An image block whose data is not base64."""


@dataclass(frozen=True, slots=True)
class PromptParts:
    text: str
    images: list[PromptImage] = field(default_factory=list)


def prompt_parts(blocks: Sequence[Any], root: Path) -> PromptParts:
    """The prompt's text (with what it points at) and its images; BadImage for an image
    block that does not decode."""
    images = [_image(block, n) for n, block in enumerate(_images(blocks), start=1)]
    parts = [_part(block, root) for block in blocks if not isinstance(block, ImageContentBlock)]
    return PromptParts(prompt_with_context(parts), images)


def _images(blocks: Sequence[Any]) -> list[ImageContentBlock]:
    return [block for block in blocks if isinstance(block, ImageContentBlock)]


def _image(block: ImageContentBlock, number: int) -> PromptImage:
    name = f"image {number}" + (f" ({block.uri})" if block.uri else "")
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        raise BadImage(f"{name}: its data is not base64") from None
    return PromptImage(data, name)


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
    if isinstance(block, AudioContentBlock):
        return NotIncluded("audio was attached, but agentls passes the model no audio")
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
