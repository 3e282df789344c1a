"""A definition's lines carried through edits (the placement used while typing goes on), and
the pause after which the document is parsed again."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_server.doc_parse import MAX_CARRIED_EDITS, DocumentParse, follow
from lsp_server.documents import DocState
from lsp_server.line_shift import LineEdit, first_line, last_line, line_edit
from lsp_server.typing_pause import PARSE_PAUSE_SECONDS


def edit(start: tuple[int, int], end: tuple[int, int], text: str) -> LineEdit:
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(*start), types.Position(*end)), text=text
    )
    found = line_edit(change)
    assert found is not None
    return found


def test_a_change_of_the_whole_document_has_no_lines_to_carry() -> None:
    assert line_edit(types.TextDocumentContentChangeWholeDocument(text="x")) is None


def test_lines_inserted_or_removed_above_move_the_definition() -> None:
    # a definition on 1-based lines 10..14 (0-based 9..13)
    assert (first_line(10, [edit((0, 0), (0, 0), "a\nb\n")]), last_line(14, [])) == (12, 14)
    assert last_line(14, [edit((0, 0), (0, 0), "a\nb\n")]) == 16
    assert first_line(10, [edit((2, 0), (5, 0), "")]) == 7
    assert last_line(14, [edit((2, 0), (5, 0), "")]) == 11
    # applied in order: two lines in, one out
    both = [edit((0, 0), (0, 0), "a\nb\n"), edit((1, 0), (2, 0), "")]
    assert (first_line(10, both), last_line(14, both)) == (11, 15)


def test_the_lines_typed_are_counted_as_the_client_counts_them() -> None:
    # "\r\n", a lone "\r" and "\n" each end one line
    assert edit((0, 0), (0, 0), "a\rb\r\nc\n").new_lines == 3
    assert first_line(10, [edit((0, 0), (0, 0), "\r\r")]) == 12


def test_edits_below_or_within_a_line_leave_it_alone() -> None:
    assert first_line(10, [edit((20, 0), (20, 0), "a\n")]) == 10
    assert last_line(14, [edit((20, 0), (20, 0), "a\n")]) == 14
    assert first_line(10, [edit((9, 4), (9, 4), "x")]) == 10  # a keystroke on its first line
    assert first_line(10, [edit((9, 4), (9, 4), "\n")]) == 10  # a line broken after its start


def test_text_typed_at_the_start_of_its_first_line_pushes_it_down() -> None:
    assert first_line(10, [edit((9, 0), (9, 0), "\n\n")]) == 12
    assert first_line(10, [edit((9, 0), (9, 0), "x")]) == 10


def test_a_definition_inside_a_new_line_break_grows_at_its_end() -> None:
    assert last_line(14, [edit((11, 3), (11, 3), "\n")]) == 15
    assert first_line(10, [edit((11, 3), (11, 3), "\n")]) == 10


def test_a_replaced_stretch_holding_an_end_leaves_it_at_the_replacement() -> None:
    # lines 8..11 (0-based) replaced by one line of text: the start goes to where it began,
    # the end to where the replacement ends
    replaced = [edit((8, 2), (11, 5), "y")]
    assert first_line(10, replaced) == 9
    assert last_line(11, replaced) == 9
    assert last_line(14, replaced) == 11


def test_typing_pauses_after_three_tenths_of_a_second() -> None:
    assert PARSE_PAUSE_SECONDS == 0.3


def test_a_parse_is_carried_through_five_hundred_edits_then_dropped(tmp_path: Path) -> None:
    assert MAX_CARRIED_EDITS == 500
    doc = DocState(uri="file:///a.py", path=tmp_path / "a.py", root=None, rel="a.py")  # type: ignore[arg-type]
    doc.parse = DocumentParse("", ())
    keystroke = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="x"
    )
    for n in range(1, MAX_CARRIED_EDITS + 1):
        assert follow(doc, [keystroke], "x" * n)
    assert doc.parse is not None and len(doc.parse.edits) == MAX_CARRIED_EDITS
    assert not follow(doc, [keystroke], "x" * (MAX_CARRIED_EDITS + 1))
    assert doc.parse is None  # the next placement parses the text


def test_a_parse_already_of_the_changed_text_is_not_moved_again(tmp_path: Path) -> None:
    doc = DocState(uri="file:///a.py", path=tmp_path / "a.py", root=None, rel="a.py")  # type: ignore[arg-type]
    parsed = DocumentParse("\n\nx = 1\n", ())
    doc.parse = parsed
    lines_in = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="\n\n"
    )
    assert not follow(doc, [lines_in], "\n\nx = 1\n")
    assert doc.parse is parsed
