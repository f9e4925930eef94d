"""A session/prompt's content blocks as the prompt the core takes: text and images."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from acp import (
    audio_block,
    embedded_blob_resource,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)

from agentls.acp.prompt_blocks import BadImage, prompt_parts
from tests.helpers import png


def test_every_kind_of_block_is_kept_or_named(tmp_path: Path) -> None:
    blocks = [
        text_block("fix it"),
        resource_link_block(name="a.py", uri=(tmp_path / "src" / "a.py").as_uri()),
        resource_link_block(name="doc", uri="https://example.test/doc"),
        resource_block(embedded_text_resource(uri=(tmp_path / "n.md").as_uri(), text="note")),
        resource_block(
            embedded_blob_resource(uri="file:///x.bin", blob="AAA=", mime_type="image/png")
        ),
        audio_block(data="AAA=", mime_type="audio/wav"),
    ]
    assert prompt_parts(blocks, tmp_path).text.split("\n\n") == [
        "fix it",
        "[the person points at src/a.py]",
        "[the person points at https://example.test/doc]",
        '<context source="n.md">\nnote\n</context>',
        "[/x.bin: binary content (image/png) not included]",
        "[audio was attached, but agentls passes the model no audio]",
    ]


def test_image_blocks_are_handed_on_as_their_bytes(tmp_path: Path) -> None:
    picture = png(3, 3)
    encoded = base64.b64encode(picture).decode()
    parts = prompt_parts(
        [image_block(data=encoded, mime_type="image/jpeg"), text_block("what is this?")], tmp_path
    )
    assert parts.text == "what is this?"
    assert [(image.data, image.name) for image in parts.images] == [(picture, "image 1")]


def test_an_image_block_that_is_not_base64_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadImage, match="image 1: its data is not base64"):
        prompt_parts([image_block(data="not base64!", mime_type="image/png")], tmp_path)
