"""Edits reach the editor as workspace/applyEdit: versioned, minimal, reviewed."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.e2e.lsp.editor import Editor, capabilities, plain_client
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import tool_result_text

BIG = "".join(f"value_{i} = {i}\n" for i in range(20_000))


def edit_call(path: str, old: str, new: str, call_id: str = "toolu_e") -> tuple[str, str, dict]:
    return (call_id, "edit_file", {"path": path, "old_text": old, "new_text": new})


async def test_edit_of_an_open_buffer_is_one_versioned_minimal_hunk(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "big.py").write_text(BIG)
    uri = editor.open("big.py")
    editor.change(uri, BIG.replace("value_7 = 7\n", "value_7 = 'edited by the person'\n"))
    editor.answers = ["Apply"]
    fake.add(
        turn(tool_calls=[edit_call("big.py", "value_12345 = 12345\n", "value_12345 = 0\n")]),
        turn("Changed it."),
    )
    result = await editor.ask("set value_12345 to 0", wait=True)
    assert result["terminalReason"] == "completed", result
    (params,) = editor.edits
    (change,) = params.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 2  # the buffer's version, after the person's edit
    (edit,) = change.edits
    assert (edit.range.start.line, edit.range.end.line) == (12345, 12346)
    assert edit.new_text == "value_12345 = 0\n"
    text = editor.text(uri)
    assert "value_12345 = 0\n" in text and "value_7 = 'edited by the person'" in text
    assert "Apply it?" in editor.prompts[0].message and "big.py" in editor.prompts[0].message
    assert [a.title for a in editor.prompts[0].actions] == ["Apply", "Show diff", "Reject"]
    assert "edit_applied" in editor.kinds()


async def test_rejected_edit_writes_nothing_and_tells_the_model(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.py").write_text("x = 1\n")
    editor.answers = ["Reject"]
    fake.add(turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]), turn("Okay, left it."))
    result = await editor.ask("change x", wait=True)
    assert result["terminalReason"] == "completed"
    assert editor.edits == []  # never sent to the editor
    assert (root / "a.py").read_text() == "x = 1\n"
    assert "rejected by the user" in tool_result_text(fake, 1)


async def test_editor_refusing_the_edit_is_a_rejection(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.py").write_text("x = 1\n")
    editor.answers = ["Apply"]
    editor.apply_edits = False
    fake.add(turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]), turn("Left it."))
    await editor.ask("change x", wait=True)
    assert len(editor.edits) == 1
    assert (root / "a.py").read_text() == "x = 1\n"
    assert "rejected by the user" in tool_result_text(fake, 1)


async def test_show_diff_opens_the_diff_then_asks_again(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.py").write_text("x = 1\n")
    editor.answers = ["Show diff", "Apply"]
    fake.add(turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]), turn("Done."))
    await editor.ask("change x", wait=True)
    shown = editor.client.shown_documents[-1].uri
    diff = Path(shown.removeprefix("file://")).read_text()
    assert "-x = 1" in diff and "+x = 2" in diff
    assert len(editor.prompts) == 2
    assert (root / "a.py").read_text() == "x = 2\n"


async def test_clients_with_previews_get_annotated_edits_and_no_prompt(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    editor: Editor = await open_editor(caps=capabilities(annotations=True))
    (root / "a.py").write_text("x = 1\n")
    fake.add(turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]), turn("Done."))
    await editor.ask("change x", wait=True)
    assert editor.prompts == []
    (params,) = editor.edits
    (annotation,) = params.edit.change_annotations.values()
    assert annotation.needs_confirmation is True
    (change,) = params.edit.document_changes
    assert all(isinstance(e, types.AnnotatedTextEdit) for e in change.edits)
    assert change.text_document.version is None  # a closed file


async def test_new_file_is_a_create_file_then_its_text(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    editor.answers = ["Apply"]
    fake.add(
        turn(tool_calls=[("toolu_w", "write_file", {"path": "pkg/new.py", "content": "A = 1\n"})]),
        turn("Created."),
    )
    await editor.ask("make pkg/new.py", wait=True)
    (params,) = editor.edits
    create, text_edit = params.edit.document_changes
    assert isinstance(create, types.CreateFile) and create.uri.endswith("/pkg/new.py")
    assert isinstance(text_edit, types.TextDocumentEdit)
    assert text_edit.edits[0].new_text == "A = 1\n"
    assert (root / "pkg" / "new.py").read_text() == "A = 1\n"


async def test_accept_edits_mode_skips_the_review(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    editor: Editor = await open_editor(configuration={"mode": "accept-edits"})
    (root / "a.py").write_text("x = 1\n")
    fake.add(turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]), turn("Done."))
    await editor.ask("change x", wait=True)
    assert editor.prompts == []
    assert (root / "a.py").read_text() == "x = 2\n"


async def test_an_allow_rule_covering_an_edit_skips_the_review_as_the_mode_does(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    rules = {"allow": ["edit_file(src/**)"]}
    editor: Editor = await open_editor(configuration={"permissions": rules})
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / "b.py").write_text("y = 1\n")
    uri = editor.open("src/a.py")
    editor.answers = ["Reject"]  # the one review left: b.py, which the rule does not cover
    fake.add(
        turn(tool_calls=[edit_call("src/a.py", "x = 1\n", "x = 2\n")]),
        turn(tool_calls=[edit_call("b.py", "y = 1\n", "y = 2\n", "toolu_b")]),
        turn("Done."),
    )
    result = await editor.ask("change x and y", wait=True)
    assert result["terminalReason"] == "completed", result
    (params,) = editor.edits  # src/a.py through workspace/applyEdit: the editor's undo works
    (change,) = params.edit.document_changes
    assert change.text_document.uri == uri
    assert editor.text(uri) == "x = 2\n" and (root / "src" / "a.py").read_text() == "x = 2\n"
    (review,) = editor.prompts  # b.py only
    assert "b.py" in review.message and "src/a.py" not in review.message
    assert (root / "b.py").read_text() == "y = 1\n"


async def test_a_control_file_is_reviewed_whatever_the_rules_and_the_mode_allow(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    rules = {"allow": ["edit_file"], "protectedPaths": ["config/**"]}
    configuration = {"mode": "accept-edits", "permissions": rules}
    editor: Editor = await open_editor(configuration=configuration)
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text("{}\n")
    (root / "config").mkdir()
    (root / "config" / "app.toml").write_text("a = 1\n")
    editor.answers = ["Allow once", "Apply", "Allow once", "Reject"]
    fake.add(
        turn(tool_calls=[edit_call(".vscode/settings.json", "{}\n", '{"a": 1}\n')]),
        turn(tool_calls=[edit_call("config/app.toml", "a = 1\n", "a = 2\n", "toolu_c")]),
        turn("Done."),
    )
    result = await editor.ask("change the settings", wait=True)
    assert result["terminalReason"] == "completed", result
    reviews = [p.message for p in editor.prompts if "Apply it?" in p.message]
    assert len(reviews) == 2 and ".vscode/settings.json" in reviews[0]
    assert "config/app.toml" in reviews[1]
    assert (root / ".vscode" / "settings.json").read_text() == '{"a": 1}\n'
    assert (root / "config" / "app.toml").read_text() == "a = 1\n"  # its review said no


async def test_stale_buffer_is_a_conflict_the_model_recovers_from(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.py").write_text("x = 1\n")
    uri = editor.open("a.py")

    def person_types_then_allows(params: types.ShowMessageRequestParams) -> str:
        editor.change(uri, "x = 1\ny = 0\n")  # typed after the agent read the buffer
        return "Allow once"

    editor.answers = [person_types_then_allows, "Apply"]
    fake.add(
        turn(tool_calls=[("toolu_r", "read_file", {"path": "a.py"}),
                         ("toolu_c", "run_command", {"command": "true"})]),
        turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n", "toolu_e1")]),
        turn(tool_calls=[("toolu_r2", "read_file", {"path": "a.py"})]),
        turn(tool_calls=[edit_call("a.py", "x = 1\ny = 0\n", "x = 2\ny = 0\n", "toolu_e2")]),
        turn("Done after re-reading."),
    )  # fmt: skip
    result = await editor.ask("change x", wait=True)
    assert result["terminalReason"] == "completed"
    conflict = tool_result_text(fake, 2)
    assert "conflict" in conflict and "read it again" in conflict
    assert editor.text(uri) == "x = 2\ny = 0\n"


async def test_the_model_is_told_what_actually_landed(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "a.py").write_text("x = 1\n")
    uri = editor.open("a.py")
    editor.answers = ["Apply"]
    editor.after_edit = lambda text: text.replace("x = 2", "x = 2  # formatted")
    fake.add(turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]), turn("Done."))
    await editor.ask("change x", wait=True)
    told = tool_result_text(fake, 1)
    assert "What landed differs from what you proposed" in told
    assert "+x = 2  # formatted" in told
    assert editor.text(uri) == "x = 2  # formatted\n"


async def test_plain_client_closed_file_is_written_after_the_review(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    editor = await plain_client(open_editor)
    (root / "a.py").write_text("x = 1\n")
    editor.answers = ["Apply", "Allow once"]
    fake.add(
        turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]),
        turn(tool_calls=[("toolu_c", "run_command", {"command": "cat a.py"})]),
        turn("Done."),
    )
    await editor.ask("change x and show it", wait=True)
    assert editor.edits == []  # no buffer to follow it: nothing for the editor to save
    assert (root / "a.py").read_text() == "x = 2\n"
    assert "x = 2" in tool_result_text(fake, 2)  # the command saw the accepted edit
    assert [k for k in editor.kinds() if k.startswith("edit_")] == ["edit_proposed", "edit_applied"]


async def test_plain_client_open_buffer_is_written_once_applied(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    editor = await plain_client(open_editor)
    (root / "a.py").write_text("x = 1\n")
    uri = editor.open("a.py")
    editor.answers = ["Apply", "Allow once"]
    fake.add(
        turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]),
        turn(tool_calls=[("toolu_c", "run_command", {"command": "cat a.py"})]),
        turn("Done."),
    )
    await editor.ask("change x and show it")
    await editor.wait_for_message("a.py holds the accepted edit; save it to go on")
    assert (root / "a.py").read_text() == "x = 1\n"  # not written behind the editor's back
    (root / "a.py").write_text(editor.text(uri))  # the person saves, as asked
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await editor.wait_finished()
    assert len(editor.edits) == 1  # the buffer got it (the editor's undo works)...
    assert editor.text(uri) == "x = 2\n" and (root / "a.py").read_text() == "x = 2\n"  # ...and disk
    result = tool_result_text(fake, 2)
    assert "x = 2" in result and "unsaved" not in result


async def test_unsaved_changes_of_the_persons_own_are_never_saved(
    open_editor, fake: FakeAnthropic, root: Path
) -> None:
    for saves in (False, True):
        editor: Editor = await open_editor(caps=capabilities(saves_edits=saves))
        editor.save_edits = False
        (root / "a.py").write_text("x = 1\ny = 1\n")
        uri = editor.open("a.py")
        editor.change(uri, "x = 1\ny = 'mine'\n")  # typed by the person, not saved
        editor.answers = ["Apply", "Allow once"]
        first = len(fake.requests)
        fake.add(
            turn(tool_calls=[edit_call("a.py", "x = 1\n", "x = 2\n")]),
            turn(tool_calls=[("toolu_c", "run_command", {"command": "cat a.py"})]),
            turn("Done."),
        )
        await editor.ask("change x", wait=True)
        assert editor.text(uri) == "x = 2\ny = 'mine'\n"
        assert (root / "a.py").read_text() == "x = 1\ny = 1\n"  # nothing saved behind their back
        assert "has unsaved changes" in editor.prompts[0].message  # the review says so
        said = tool_result_text(fake, first + 1)
        assert "has unsaved changes in the editor" in said and "not saved" in said  # the model too
        ran = next(
            e for e in editor.events if e["kind"] == "tool_finished" and e["name"] == "run_command"
        )
        assert ran["notes"] and "unsaved changes in the editor (a.py)" in ran["notes"][0]
        assert ran["notes"][0].endswith("the command saw the versions on disk")  # whole, not cut
