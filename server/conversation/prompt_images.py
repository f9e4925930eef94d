"""The images a person gives with a prompt: checked before anything is sent, then kept.

Every face hands over the bytes it was given (`PromptImage`); the model must be one
the table marks as taking images, and each image a PNG, JPEG, GIF or WebP (read
from its bytes, whatever its name or declared type says) within what the
provider's API takes (`ImageLimits`). A refusal is one `ImageRefused` sentence,
raised before the run starts, so nothing is logged or sent. Accepted images are
stored in the session's folder (`session/images.py`) and enter the prompt as
`ImageBlock`s, logged by hash.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentls.contracts.errors import ConfigError
from agentls.contracts.images import ImageLimits
from agentls.contracts.messages import ImageBlock
from agentls.conversation.image_format import ImageFacts, read_image, what_it_is
from agentls.pricing import traits_for
from agentls.session.images import SessionImages


@dataclass(frozen=True, slots=True)
class PromptImage:
    """An image as a face got it: its bytes and a name for sentences about it."""

    data: bytes
    name: str  # the file's name, or "image 2" for one pasted or sent inline


@dataclass(frozen=True, slots=True)
class CheckedImage:
    data: bytes
    facts: ImageFacts


class ImageRefused(ConfigError):
    """An image the model or its API would not take; nothing was sent."""


# No model API takes an image file this large: a file past it is refused unread.
MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024


def read_image_file(path: Path) -> PromptImage:
    """The image file a person named (blocking); ImageRefused when it cannot be one."""
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ImageRefused(f"{path} is not a file")
        if size > MAX_IMAGE_FILE_BYTES:
            too_large = f"{path} is {_megabytes(size)}; no model API takes an image so large"
            raise ImageRefused(too_large)
        return PromptImage(path.read_bytes(), str(path))
    except OSError as exc:
        raise ImageRefused(f"cannot read the image {path}: {exc.strerror or exc}") from None


def check_images(
    images: Sequence[PromptImage], model_id: str, limits: ImageLimits | None
) -> list[CheckedImage]:
    """``images`` as the model would take them, or ImageRefused saying why not."""
    if not images:
        return []
    traits = traits_for(model_id)
    if traits is None or not traits.images or limits is None:
        known = "does not know it" if traits is None else "does not mark it as one that does"
        raise ImageRefused(
            f"{model_id} does not take images (the model table, agentls/data/models.json, "
            f"{known}); ask without the image, or with a model that takes them"
        )
    if len(images) > limits.max_images:
        raise ImageRefused(
            f"{len(images)} images: {limits.api} takes at most {limits.max_images} in a request"
        )
    checked = [_checked(image, limits) for image in images]
    total = sum(len(image.data) for image in images)
    if limits.max_total_bytes is not None and total > limits.max_total_bytes:
        raise ImageRefused(
            f"the images come to {_megabytes(total)}; {limits.api} takes at most "
            f"{_megabytes(limits.max_total_bytes)} of images in a request"
        )
    return checked


def _checked(image: PromptImage, limits: ImageLimits) -> CheckedImage:
    facts = read_image(image.data)
    if facts is None:
        raise ImageRefused(
            f"{image.name} is not a PNG, JPEG, GIF or WebP image ({what_it_is(image.data)}); "
            f"{limits.api} takes only those"
        )
    size = len(image.data)
    if size > limits.max_bytes:
        note = f" ({limits.note})" if limits.note else ""
        raise ImageRefused(
            f"{image.name} is {_megabytes(size)}; {limits.api} takes images up to "
            f"{_megabytes(limits.max_bytes)}{note}: make it smaller"
        )
    side = max(facts.width, facts.height)
    if limits.max_side is not None and side > limits.max_side:
        raise ImageRefused(
            f"{image.name} is {facts.width}x{facts.height} pixels; {limits.api} takes at "
            f"most {limits.max_side:,} pixels a side: make it smaller"
        )
    if facts.width == 0 or facts.height == 0:
        raise ImageRefused(f"{image.name} has no pixels ({facts.width}x{facts.height})")
    if facts.animated and facts.media_type == "image/gif" and not limits.animated_gif:
        raise ImageRefused(f"{image.name} is an animated GIF; {limits.api} takes only still ones")
    return CheckedImage(image.data, facts)


def kept_images(checked: Sequence[CheckedImage], images: SessionImages) -> tuple[ImageBlock, ...]:
    """Store ``checked`` in the session's folder (blocking: on a worker thread) and give
    them as the prompt's blocks, data included."""
    blocks = []
    for image in checked:
        digest = images.keep(image.data)
        facts = image.facts
        encoded = base64.b64encode(image.data).decode("ascii")
        size, width, height = len(image.data), facts.width, facts.height
        blocks.append(ImageBlock(facts.media_type, digest, size, width, height, encoded))
    return tuple(blocks)


def _megabytes(size: int) -> str:
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.2f} MB"
