"""An image's real format and size, read from its first bytes (never from its name).

PNG, JPEG, GIF and WebP are the formats the model APIs take; for them the width,
the height and whether it moves (a GIF or WebP of several frames) are read from
their headers. Anything else is named where it is easy to tell, so a refusal can
say what the file is.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

# Formats the APIs do not take, told by their first bytes.
_OTHERS = (
    (b"BM", "a BMP image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"%PDF", "a PDF document"),
    (b"\x00\x00\x01\x00", "an icon (ICO)"),
)
_JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


@dataclass(frozen=True, slots=True)
class ImageFacts:
    media_type: str
    width: int
    height: int
    animated: bool = False


def read_image(data: bytes) -> ImageFacts | None:
    """What ``data`` is, if it is a PNG, JPEG, GIF or WebP image whose header reads."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return ImageFacts("image/png", width, height, b"acTL" in data[:4096])
        if data.startswith(b"\xff\xd8\xff"):
            return _jpeg(data)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            width, height = struct.unpack("<HH", data[6:10])
            return ImageFacts("image/gif", width, height, _gif_frames(data) > 1)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp(data)
    except (struct.error, IndexError):
        return None  # a header cut short: not an image the APIs would read
    return None


def what_it_is(data: bytes) -> str:
    """For a refusal: what a file that is not a PNG, JPEG, GIF or WebP image seems to be."""
    if not data:
        return "it is empty"
    for magic, name in _OTHERS:
        if data.startswith(magic):
            return f"it is {name}"
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"avif"):
        return "it is a HEIC or AVIF image"
    head = data[:512].lstrip()
    if head.startswith((b"<svg", b"<?xml")):
        return "it is an SVG or XML file"
    if data.startswith((b"\x89PNG", b"\xff\xd8", b"GIF8", b"RIFF")):
        return "its header is damaged"
    return "its bytes are no image format agentls knows"


def _jpeg(data: bytes) -> ImageFacts | None:
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length of their own
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _JPEG_FRAMES:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return ImageFacts("image/jpeg", width, height)
        at += 2 + length
    return None


def _gif_frames(data: bytes) -> int:
    """How many images a GIF holds (two or more: it is animated); blocks walked, not
    searched, so a 0x2C inside image data is not taken for one."""
    flags = data[10]
    at = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    frames = 0
    while at < len(data):
        kind = data[at]
        if kind == 0x3B:  # trailer
            break
        if kind == 0x21:  # extension: label, then sub-blocks
            at = _skip_sub_blocks(data, at + 2)
        elif kind == 0x2C:  # image descriptor, a local colour table, then the data
            frames += 1
            local = data[at + 9]
            at += 10 + (3 * 2 ** ((local & 7) + 1) if local & 0x80 else 0)
            at = _skip_sub_blocks(data, at + 1)  # after the LZW code size
        else:
            break
        if frames > 1:
            break
    return frames


def _skip_sub_blocks(data: bytes, at: int) -> int:
    while at < len(data) and data[at] != 0:
        at += data[at] + 1
    return at + 1


def _webp(data: bytes) -> ImageFacts | None:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return ImageFacts("image/webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", data[21:25])
        return ImageFacts("image/webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X":
        animated = bool(data[20] & 0x02)
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return ImageFacts("image/webp", width, height, animated)
    return None
