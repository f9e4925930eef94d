"""A session/prompt's content blocks as the text prompt the core takes."""

from __future__ import annotations

from pathlib import Path

from acp import (
    embedded_blob_resource,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)

from agentls.acp.prompt_blocks import prompt_text


def test_every_kind_of_block_is_kept_or_named(tmp_path: Path) -> None:
    blocks = [
        text_block("fix it"),
        resource_link_block(name="a.py", uri=(tmp_path / "src" / "a.py").as_uri()),
        resource_link_block(name="doc", uri="https://example.test/doc"),
        resource_block(embedded_text_resource(uri=(tmp_path / "n.md").as_uri(), text="note")),
        resource_block(
            embedded_blob_resource(uri="file:///x.bin", blob="AAA=", mime_type="image/png")
        ),
        image_block(data="AAA=", mime_type="image/png"),
    ]
    assert prompt_text(blocks, tmp_path).split("\n\n") == [
        "fix it",
        "[the person points at src/a.py]",
        "[the person points at https://example.test/doc]",
        '<context source="n.md">\nnote\n</context>',
        "[/x.bin: binary content (image/png) not included]",
        "[an image was attached, but agentls passes the model text only]",
    ]
