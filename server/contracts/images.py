"""What a model API takes of the images in a prompt, as its provider declares it."""

from __future__ import annotations

from typing import Final

from agentls.contracts.values import value

# The formats both model APIs take, by media type.
IMAGE_TYPES: Final = ("image/png", "image/jpeg", "image/gif", "image/webp")


@value
class ImageLimits:
    """Checked before anything is sent: an image past one of them is refused with a
    sentence, never left for the API to reject."""

    api: str  # as a sentence names it: "the Anthropic API"
    max_bytes: int  # one image's file
    max_side: int | None  # pixels, either side; None: no limit of its own
    max_images: int  # in one request
    max_total_bytes: int | None  # every image of one request together
    animated_gif: bool  # takes a GIF of several frames
    note: str = ""  # how the API counts, added to a refusal for size
