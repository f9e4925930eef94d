"""Images of a prompt: their real format and size from their bytes, the checks against
the model and its API, and what is kept in the session's folder."""

from __future__ import annotations

import base64
import hashlib
import struct
from pathlib import Path

import pytest

from agentls.contracts.images import ImageLimits
from agentls.conversation.image_format import ImageFacts, read_image, what_it_is
from agentls.conversation.prompt_images import (
    ImageRefused,
    PromptImage,
    check_images,
    kept_images,
    read_image_file,
)
from agentls.providers.openai_compat import OPENAI_IMAGES
from agentls.providers.scripted import SCRIPTED_IMAGES
from agentls.session.images import SessionImages
from tests.helpers import gif, png

SONNET = "anthropic:claude-sonnet-4-5"
LIMITS = ImageLimits(
    api="the test API", max_bytes=2000, max_side=100, max_images=2, max_total_bytes=2500,
    animated_gif=False,
)  # fmt: skip


def jpeg(width: int, height: int) -> bytes:
    """A JPEG's markers up to its frame header: APP0 first, as cameras write it."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    frame = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + frame + b"\xff\xd9"


def webp(chunk: bytes, body: bytes) -> bytes:
    payload = b"WEBP" + chunk + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", len(payload)) + payload


def test_the_format_and_size_come_from_the_bytes() -> None:
    lossy = webp(b"VP8 ", b"\x00" * 6 + struct.pack("<HH", 640, 480) + b"\x00" * 8)
    lossless = webp(b"VP8L", b"\x2f" + struct.pack("<I", (19 << 14) | 29))
    animated = webp(
        b"VP8X", bytes([0x02, 0, 0, 0]) + (99).to_bytes(3, "little") + (9).to_bytes(3, "little")
    )
    assert read_image(png(7, 9)) == ImageFacts("image/png", 7, 9)
    assert read_image(jpeg(1920, 1080)) == ImageFacts("image/jpeg", 1920, 1080)
    assert read_image(gif(1, 3, 4)) == ImageFacts("image/gif", 3, 4, animated=False)
    assert read_image(gif(frames=2)) == ImageFacts("image/gif", 1, 1, animated=True)
    assert read_image(lossy) == ImageFacts("image/webp", 640, 480)
    assert read_image(lossless) == ImageFacts("image/webp", 30, 20)
    assert read_image(animated) == ImageFacts("image/webp", 100, 10, animated=True)


def test_what_is_no_image_is_named_for_the_refusal() -> None:
    assert read_image(b"%PDF-1.7 ...") is None
    assert what_it_is(b"%PDF-1.7") == "it is a PDF document"
    assert what_it_is(b"BM\x00\x00") == "it is a BMP image"
    assert what_it_is(b"\x00\x00\x00\x18ftypheic") == "it is a HEIC or AVIF image"
    assert what_it_is(b"  <svg xmlns=...") == "it is an SVG or XML file"
    assert what_it_is(png()[:20]) == "its header is damaged"
    assert what_it_is(b"") == "it is empty"
    assert read_image(png()[:20]) is None  # cut short: no image the APIs would read


def test_a_prompt_image_is_refused_with_the_reason() -> None:
    def refused(images: list[PromptImage], model: str = SONNET) -> str:
        with pytest.raises(ImageRefused) as caught:
            check_images(images, model, LIMITS)
        return str(caught.value)

    small = PromptImage(png(2, 2), "a.png")
    assert "the test API takes at most 2 in a request" in refused([small] * 3)
    assert "b.png is not a PNG, JPEG, GIF or WebP image (its bytes are" in refused(
        [PromptImage(b"hello", "b.png")]
    )
    big = PromptImage(png(1, 1) + b"\0" * 2100, "big.png")
    assert "big.png is 2.1 KB; the test API takes images up to 2.0 KB" in refused([big])
    assert "wide.png is 101x1 pixels" in refused([PromptImage(png(101, 1), "wide.png")])
    assert "is an animated GIF; the test API takes only still ones" in refused(
        [PromptImage(gif(frames=2), "g.gif")]
    )
    half = PromptImage(png(1, 1) + b"\0" * 1300, "half.png")
    assert "the images come to" in refused([half, half])
    assert "does not take images" in refused([small], "anthropic:claude-3-5-haiku-latest")
    assert "does not know it" in refused([small], "openai:llava")
    with pytest.raises(ImageRefused, match="does not take images"):
        check_images([small], SONNET, None)  # a provider that takes none
    assert check_images([], "openai:llava", None) == []


def test_the_providers_limits_are_those_of_their_apis() -> None:
    assert SCRIPTED_IMAGES.max_bytes == 3_932_160  # 5 MiB of base64
    assert OPENAI_IMAGES.max_bytes == 20 * 1024 * 1024 and not OPENAI_IMAGES.animated_gif
    big = PromptImage(png(1, 1) + b"\0" * 3_932_160, "big.png")
    with pytest.raises(ImageRefused, match="5 MB once base64-encoded"):
        check_images([big], "scripted:demo", SCRIPTED_IMAGES)


def test_accepted_images_are_kept_once_by_hash(tmp_path: Path) -> None:
    picture = png(3, 3)
    images = SessionImages(tmp_path / "s1" / "images")
    checked = check_images([PromptImage(picture, "a"), PromptImage(picture, "b")], SONNET, LIMITS)
    first, second = kept_images(checked, images)
    digest = hashlib.sha256(picture).hexdigest()
    assert first == second and first.sha256 == digest
    assert (first.media_type, first.size, first.width, first.height) == (
        "image/png",
        len(picture),
        3,
        3,
    )
    assert base64.b64decode(first.data) == picture
    assert [p.name for p in images.folder.iterdir()] == [digest]
    assert (images.folder / digest).stat().st_mode & 0o077 == 0


def test_an_image_file_is_read_or_refused(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png())
    assert read_image_file(tmp_path / "a.png") == PromptImage(png(), str(tmp_path / "a.png"))
    with pytest.raises(ImageRefused, match="cannot read the image"):
        read_image_file(tmp_path / "gone.png")
    with pytest.raises(ImageRefused, match="is not a file"):
        read_image_file(tmp_path)
