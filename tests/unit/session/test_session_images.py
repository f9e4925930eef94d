"""A session's prompt images: kept by hash beside its log, read back into the history, and
a gone or changed one said in words instead of sent broken."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from agentls.contracts.messages import ImageBlock, Message, TextBlock, user_prompt
from agentls.session import events as ev
from agentls.session.images import SessionImages
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from tests.helpers import png


def test_a_resumed_sessions_images_come_back_with_their_data(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session_id, log = store.create(tmp_path, "scripted:demo")
    picture = png(3, 2)
    images = SessionImages.beside(log.path)
    digest = images.keep(picture)
    assert images.folder == tmp_path / "sessions" / session_id / "images"
    block = ImageBlock("image/png", digest, len(picture), 3, 2, "ZGF0YQ==")
    log.append(ev.UserMessage(run="r1", turn=0, message=user_prompt("what?", (block,))))
    log.close()
    written = log.path.read_text()
    assert digest in written and "ZGF0YQ==" not in written  # by hash, never the data
    _, state = store.open(session_id)
    (image, words) = state.messages[0].content
    assert isinstance(image, ImageBlock) and words == TextBlock("what?")
    assert image == block and base64.b64decode(image.data) == picture
    (read,) = [e for e in read_events(log.path) if isinstance(e, ev.UserMessage)]
    assert read.message.images[0].data == ""  # the log alone has no data


def test_an_image_gone_or_changed_becomes_a_line_and_is_named(tmp_path: Path) -> None:
    images = SessionImages(tmp_path / "images")
    kept, changed = images.keep(png(1, 1)), images.keep(png(2, 2))
    (images.folder / changed).write_bytes(b"tampered")
    gone = hashlib.sha256(b"never kept").hexdigest()
    blocks = [ImageBlock("image/png", d, 10, 1, 1) for d in (kept, changed, gone)]
    message = Message("user", (*blocks, TextBlock("q")))
    assert images.missing([message]) == [changed, gone]
    filled = images.filled([message])[0].content
    assert isinstance(filled[0], ImageBlock) and filled[0].data
    said = "[an image (image/png, 1x1) was here; it is no longer in the session's folder]"
    assert filled[1] == filled[2] == TextBlock(said)
    assert images.read(gone) is None


def test_sessions_are_still_listed_beside_their_image_folders(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session_id, log = store.create(tmp_path, "scripted:demo")
    SessionImages.beside(log.path).keep(png())
    log.close()
    assert [info.id for info in store.list()] == [session_id]


def test_a_fork_keeps_the_images_its_prompts_name(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session_id, log = store.create(tmp_path, "scripted:demo")
    picture = png(4, 4)
    digest = SessionImages.beside(log.path).keep(picture)
    block = ImageBlock("image/png", digest, len(picture), 4, 4)
    log.append(ev.RunStarted(run="r1", prompt="look", settings={}))
    log.append(ev.UserMessage(run="r1", turn=0, message=user_prompt("look", (block,))))
    log.close()
    forked = store.fork(session_id, None)
    _, state = store.open(forked)
    (image, _) = state.messages[0].content
    assert isinstance(image, ImageBlock) and base64.b64decode(image.data) == picture
