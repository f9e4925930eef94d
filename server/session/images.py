"""The images of a session's prompts, kept by hash in its folder under the state dir.

``sessions/<id>.jsonl`` logs an image as its hash, media type and size; its bytes
are ``sessions/<id>/images/<sha256>``, written once (private, atomically) before
the prompt that carries it is logged. Whoever rebuilds the history (a resumed
session, one caught up after another process wrote to it) gets each image's
data back from here; an image that is gone, or whose bytes no longer hash to its
name, becomes a line saying so, and the rest of the session goes on.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path

from agentls.contracts.messages import ContentBlock, ImageBlock, Message, TextBlock
from agentls.workspace.atomic import replace_atomically

logger = logging.getLogger(__name__)


class SessionImages:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def beside(cls, log_path: Path) -> SessionImages:
        """The images of the session whose log is ``log_path`` (``<id>.jsonl``)."""
        return cls(log_path.with_suffix("") / "images")

    def keep(self, data: bytes) -> str:
        """Store ``data`` (once: the same bytes are the same file); its sha256."""
        digest = hashlib.sha256(data).hexdigest()
        path = self.folder / digest
        if not path.is_file():
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            replace_atomically(path, data)
        return digest

    def copy_to(self, other: SessionImages) -> None:
        """Every image kept here kept in ``other`` too (a fork's prompts name them)."""
        try:
            names = [p.name for p in self.folder.iterdir() if p.is_file()]
        except OSError:
            return
        for name in names:
            data = self.read(name)
            if data is not None:
                other.keep(data)

    def read(self, digest: str) -> bytes | None:
        """The bytes stored as ``digest``; None when they are gone or no longer hash to it."""
        try:
            data = (self.folder / digest).read_bytes()
        except (OSError, ValueError):
            return None
        return data if hashlib.sha256(data).hexdigest() == digest else None

    def missing(self, messages: Sequence[Message]) -> list[str]:
        """The hashes of the images ``messages`` name that are not here as they were."""
        return [
            block.sha256
            for message in messages
            for block in message.images
            if self.read(block.sha256) is None
        ]

    def filled(self, messages: Sequence[Message]) -> list[Message]:
        """``messages`` with each image's data read back (blocking: on a worker thread)."""
        return [self._filled(m) if m.images else m for m in messages]

    def _filled(self, message: Message) -> Message:
        blocks: list[ContentBlock] = []
        for block in message.content:
            if isinstance(block, ImageBlock) and not block.data:
                blocks.append(self._with_data(block))
            else:
                blocks.append(block)
        return Message(message.role, tuple(blocks))

    def _with_data(self, block: ImageBlock) -> ContentBlock:
        data = self.read(block.sha256)
        if data is None:
            logger.warning("image %s is not in %s as it was logged", block.sha256, self.folder)
            return TextBlock(
                f"[an image ({block.media_type}, {block.width}x{block.height}) was here; "
                "it is no longer in the session's folder]"
            )
        encoded = base64.b64encode(data).decode("ascii")
        return ImageBlock(
            block.media_type, block.sha256, block.size, block.width, block.height, encoded
        )
