"""Which values of a memory file's text YAML reads as other than written, however the file is
written: in a flow list of anchors, after a comment, with old Mac line ends, in a key Tether
reads or one of the person's own; and which it never says (a value meant as YAML reads it)."""

from __future__ import annotations

from recall.read_as import NOT_TEXT_KEYS, retyped

HEAD = "---\nid: 0c0ffee3\ncategory: gotcha\nfiles: [src/a.py]\n"
TAIL = "---\nsummary\n"


def _found(keys: str) -> list[tuple[str, int, str, object, object, bool]]:
    return [
        (r.key, r.line, r.written, r.read, r.kept, r.read_by_tether)
        for r in retyped(HEAD + keys + TAIL)
    ]


def test_the_keys_meant_as_yaml_reads_them_are_a_boolean_and_a_time() -> None:
    assert {"pinned", "guard", "created"} == NOT_TEXT_KEYS
    assert _found("pinned: on\nguard: yes\ncreated: 2026-11-30\n") == []


def test_top_level_keys_tether_reads_and_ones_own() -> None:
    keys = "anchor: 1.10\nauthor: 1_000  # thousand\nticket: ~\nver: 2\nname: '1.10'\n"
    assert _found(keys) == [
        ("anchor", 5, "1.10", 1.1, "1.1", True),
        ("author", 6, "1_000", 1000, "1000", True),
        ("ticket", 7, "~", None, None, False),
    ]


def test_anchor_entries_block_and_flow() -> None:
    block = "anchors:\n  - symbol: src/a.py::f\n    body: 0777\n    lines: 1.10\n"
    assert _found(block) == [
        ("body", 7, "0777", 511, "511", True),
        ("lines", 8, "1.10", 1.1, 1.1, False),
    ]
    flow = "anchors: [{symbol: src/a.py::f, body: ~, lines: 0x10}]\n"
    assert _found(flow) == [("lines", 5, "0x10", 16, 16, False)]


def test_a_file_of_old_mac_line_ends() -> None:
    text = (HEAD + "ticket: 0x10\n" + TAIL).replace("\n", "\r")
    assert [(r.key, r.line) for r in retyped(text)] == [("ticket", 5)]


def test_a_file_that_does_not_load_says_nothing() -> None:
    assert retyped(HEAD.replace("gotcha", "gotch") + "author: on\n" + TAIL) == []
    assert retyped("no front matter\nauthor: on\n") == []
