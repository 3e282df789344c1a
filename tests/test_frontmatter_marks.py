"""Where each entry of a front-matter list is written, however the list is written."""

from __future__ import annotations

from recall.frontmatter_marks import Span, entry_spans, plain_entry_values

HEAD = "---\nid: abc\ncategory: gotcha\n"
TAIL = "pinned: false\n---\nsummary\n"


def test_a_block_list_with_a_comment_between_its_entries() -> None:
    text = HEAD + "files:\n  # the old name below\n  - src/a.py\n  - src/b.py\n" + TAIL
    assert entry_spans(text, "files") == [Span(6, 4, 12), Span(7, 4, 12)]


def test_a_flow_list_on_the_key_line_with_quoted_and_emoji_names() -> None:
    text = HEAD + 'files: ["😀😀", src/b.py]\n' + TAIL
    [first, second] = entry_spans(text, "files")
    line = text.split("\n")[first.line - 1]
    assert first.line == second.line == 4
    assert line[first.start : first.end] == '"😀😀"'
    assert line[second.start : second.end] == "src/b.py"


def test_crlf_lines_and_a_single_string() -> None:
    text = (HEAD + "files: src/a.py\n" + TAIL).replace("\n", "\r\n")
    assert entry_spans(text, "files") == [Span(4, 7, 15)]


def test_nothing_when_the_key_is_absent_or_the_yaml_does_not_read() -> None:
    assert entry_spans(HEAD + TAIL, "files") == []
    assert entry_spans(HEAD + "files: [a\n" + TAIL, "files") == []
    assert entry_spans("no front matter", "files") == []


def test_line_breaks_that_yaml_counts_and_the_file_does_not() -> None:
    for other in ("\u2028", "\u2029", "\u0085"):
        text = f'---\nid: x\nauthor: "a{other}b"\nfiles:\n  - a.py\n  - b.py\n---\nsummary\n'
        assert entry_spans(text, "files") == [Span(5, 4, 8), Span(6, 4, 8)], repr(other)
    # a lone carriage return ends a line, as an editor counts lines (recall.line_ends)
    text = '---\nid: x\nnote: "a\rb"\nfiles: [a.py, b.py]\n---\nsummary\n'
    assert entry_spans(text, "files") == [Span(5, 8, 12), Span(5, 14, 18)]


def test_the_unquoted_values_of_each_entry_block_or_flow() -> None:
    block = "anchors:\n  - symbol: a.py::f\n    body: 0777\n    note: '1.10'\n  - b.py::g\n"
    assert plain_entry_values(HEAD + block + TAIL, "anchors") == [
        {"symbol": (5, "a.py::f"), "body": (6, "0777")},
        {},
    ]
    flow = 'anchors: [{symbol: a.py::f, lines: 1.10, note: "on"}]\n'
    assert plain_entry_values(HEAD + flow + TAIL, "anchors") == [
        {"symbol": (4, "a.py::f"), "lines": (4, "1.10")}
    ]
    alone = "anchors: {symbol: a.py::f, lines: 1.10}\n"
    assert plain_entry_values(HEAD + alone + TAIL, "anchors") == [
        {"symbol": (4, "a.py::f"), "lines": (4, "1.10")}
    ]
    assert plain_entry_values(HEAD + TAIL, "anchors") == []
    assert plain_entry_values(HEAD + "anchors: [a\n" + TAIL, "anchors") == []
