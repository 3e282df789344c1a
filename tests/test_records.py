"""Validated memory records: parsed files become :class:`Memory` or a precise MalformedMemory.

Also covers the record model (ids, content hash for dedupe) and the checks applied to what a
user types (summary, details, category).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall import frontmatter
from recall.anchors.symbols import SymbolAnchor
from recall.errors import BadInput, MalformedMemory
from recall.model import (
    CATEGORIES,
    SOURCES,
    STATUSES,
    Memory,
    _normalize_for_hash,
    content_hash,
    is_valid_id,
)
from recall.records import (
    KNOWN_KEYS,
    front_matter_fields,
    id_for_filename,
    memory_from_parsed,
    render_memory,
)
from recall.text_checks import check_category, check_details, check_summary

FALLBACK = "2001-02-03T04:05:06+00:00"


def load(text: str, name: str = "1a2b3c4d.md") -> Memory:
    """Parse and validate a memory file's text."""
    path = f".tether/memories/{name}"
    return memory_from_parsed(frontmatter.parse(text, path), path, fallback_created=FALLBACK)


def problem(text: str, name: str = "1a2b3c4d.md") -> MalformedMemory:
    """The MalformedMemory raised for ``text``."""
    with pytest.raises(MalformedMemory) as caught:
        load(text, name)
    return caught.value


def test_hand_written_minimal_file_loads_with_defaults() -> None:
    memory = load("---\ncategory: gotcha\nfiles: [src/app.py]\n---\nDo not call foo twice\n")
    assert memory == Memory(
        id="1a2b3c4d",
        category="gotcha",
        summary="Do not call foo twice",
        details="",
        files=("src/app.py",),
        anchor=None,
        pinned=False,
        status="active",
        supersedes=None,
        superseded_by=None,
        created=FALLBACK,
        author="",
        source="user",
    )


def test_id_comes_from_a_stable_hash_when_the_file_name_is_not_an_id() -> None:
    one = load("---\ncategory: pref\n---\nTabs\n", name="my-notes.md")
    two = load("---\ncategory: pref\n---\nSpaces\n", name="my-notes.md")
    other = load("---\ncategory: pref\n---\nTabs\n", name="other.md")
    assert is_valid_id(one.id)
    assert one.id == two.id == id_for_filename("my-notes.md")
    assert other.id != one.id
    assert id_for_filename("0badcafe.md") == "0badcafe"
    assert id_for_filename("0BADCAFE.md") != "0BADCAFE"


def test_front_matter_id_wins_over_file_name() -> None:
    assert load("---\nid: 9f9f9f9f\ncategory: pref\n---\nS\n").id == "9f9f9f9f"


def test_unquoted_yaml_values_are_read_as_text() -> None:
    memory = load(
        "---\nid: 12345678\ncategory: context\ncreated: 2026-01-02T03:04:05Z\n"
        "anchor: 2026-01-02\nauthor: 42\nsupersedes: 87654321\n---\nS\n"
    )
    assert memory.id == "12345678"
    assert memory.created == "2026-01-02T03:04:05+00:00"
    assert memory.anchor == "2026-01-02"
    assert memory.author == "42"
    assert memory.supersedes == "87654321"


def test_single_file_string_is_a_one_item_list() -> None:
    assert load("---\ncategory: pref\nfiles: src/app.py\n---\nS\n").files == ("src/app.py",)


def test_unknown_keys_are_kept_and_stale_hash_is_dropped() -> None:
    memory = load(
        "---\ncategory: pref\nticket: ABC-1\ncontent_hash: deadbeef\nnested: {a: [1, 2]}\n---\nS\n"
    )
    assert memory.extra == {"ticket": "ABC-1", "nested": {"a": [1, 2]}}
    assert memory.content_hash != "deadbeef"
    assert "ticket: ABC-1" in render_memory(memory)


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("---\nfiles: []\n---\nS\n", 1, "missing 'category'"),
        ("---\nid: 1a2b3c4d\nfiles: []\ncategory: nope\n---\nS\n", 4, "unknown category 'nope'"),
        ("---\ncategory: [gotcha]\n---\nS\n", 2, "unknown category"),
        ("---\ncategory: gotcha\n---\n\n\n", 4, "missing summary"),
        ("---\ncategory: gotcha\nfiles:\n  - 1\n---\nS\n", 3, "files must be a list"),
        ("---\ncategory: gotcha\nfiles: {a: 1}\n---\nS\n", 3, "files must be a list"),
        ("---\ncategory: gotcha\nid: ABCDEF12\n---\nS\n", 3, "8 lowercase hex"),
        ("---\ncategory: gotcha\nid: 123\n---\nS\n", 3, "8 lowercase hex"),
        (
            "---\ncategory: gotcha\nid: 01234567\n---\nS\n",  # octal to YAML: 342391
            3,
            "YAML read it as the number 342391: write an id of digits in quotes",
        ),
        ("---\ncategory: gotcha\nstatus: gone\n---\nS\n", 3, "unknown status"),
        ("---\ncategory: gotcha\nsource: robot\n---\nS\n", 3, "unknown source"),
        ("---\ncategory: gotcha\npinned: maybe\n---\nS\n", 3, "pinned must be true or false"),
        ("---\ncategory: gotcha\npinned: 1\n---\nS\n", 3, "pinned must be true or false"),
        ("---\ncategory: gotcha\nsupersedes: nope\n---\nS\n", 3, "not a memory id"),
        ("---\ncategory: gotcha\nsuperseded_by: 1234567\n---\nS\n", 3, "not a memory id"),
    ],
)
def test_malformed_fields_name_their_line(text: str, line: int, fragment: str) -> None:
    found = problem(text)
    assert found.line == line
    assert fragment in found.problem
    assert str(found).startswith(f".tether/memories/1a2b3c4d.md:{line}: ")


def test_null_values_fall_back_to_defaults() -> None:
    memory = load(
        "---\ncategory: decision\nfiles:\npinned:\nstatus:\nsource:\nauthor:\nanchor:\n"
        "supersedes:\ncreated:\n---\nS\n"
    )
    assert memory.files == ()
    assert memory.pinned is False
    assert memory.status == "active"
    assert memory.source == "user"
    assert memory.author == ""
    assert memory.anchor is None
    assert memory.supersedes is None
    assert memory.created == FALLBACK


def test_front_matter_fields_order_and_optional_keys() -> None:
    memory = Memory(
        id="1a2b3c4d", category="gotcha", summary="S", created="2026-01-01T00:00:00+00:00"
    )
    assert list(front_matter_fields(memory)) == [
        "id",
        "category",
        "files",
        "pinned",
        "status",
        "created",
        "author",
        "source",
    ]
    full = memory.with_changes(anchor="f()", supersedes="0000aaaa", superseded_by="1111bbbb")
    assert list(front_matter_fields(full)) == [
        "id",
        "category",
        "files",
        "anchor",
        "pinned",
        "status",
        "supersedes",
        "superseded_by",
        "created",
        "author",
        "source",
    ]


def test_known_keys_are_in_the_order_a_memory_file_is_written() -> None:
    # a rewrite adding a known key places it by this order (recall.frontmatter.update)
    memory = Memory(
        id="1a2b3c4d",
        category="gotcha",
        summary="S",
        files=("src/a.py",),
        anchor="f()",
        anchors=(SymbolAnchor("src/a.py", "f"),),
        pinned=True,
        guard=True,
        supersedes="0000aaaa",
        superseded_by="1111bbbb",
        created="2026-01-01T00:00:00+00:00",
        extra={"ticket": "T-1"},
    )
    assert list(front_matter_fields(memory)) == [*KNOWN_KEYS, "ticket"]


def test_render_memory_text_is_exact() -> None:
    memory = Memory(
        id="1a2b3c4d",
        category="gotcha",
        summary="Summary: with a colon",
        details="Line one\n\nLine three",
        files=("src/app.py", "docs/my guide.md"),
        created="2026-11-30T21:00:00+00:00",
        author="Ada",
    )
    assert render_memory(memory) == (
        "---\n"
        "id: 1a2b3c4d\n"
        "category: gotcha\n"
        "files:\n"
        "  - src/app.py\n"
        '  - "docs/my guide.md"\n'
        "pinned: false\n"
        "status: active\n"
        'created: "2026-11-30T21:00:00+00:00"\n'
        "author: Ada\n"
        "source: user\n"
        "---\n"
        "Summary: with a colon\n"
        "\n"
        "Line one\n\nLine three\n"
    )
    assert load(render_memory(memory)) == memory


# -- user input checks -----------------------------------------------------------------------


@pytest.mark.parametrize("summary", ["", "   ", "\t", "two\nlines", "carriage\rreturn", "end\n"])
def test_bad_summaries(summary: str) -> None:
    with pytest.raises(BadInput):
        check_summary(summary)


@pytest.mark.parametrize("summary", ["ok", "  spaced  ", "émoji 🚀", "tab\tinside", "[markup]"])
def test_summaries_are_never_altered(summary: str) -> None:
    assert check_summary(summary) == summary


def test_summary_with_surrogates_is_bad_input() -> None:
    with pytest.raises(BadInput, match="UTF-8"):
        check_summary("bad \udcff byte")


def test_details_whitespace_only_is_none_and_text_is_kept() -> None:
    assert check_details(None) == ""
    assert check_details(" \n\t\n") == ""
    assert check_details("  keep\n  me \n") == "  keep\n  me \n"
    with pytest.raises(BadInput):
        check_details("bad \udcff")


def test_category_check() -> None:
    assert check_category("pref") == "pref"
    for bad in ("Pref", "gotchas", ""):
        with pytest.raises(BadInput, match="unknown category"):
            check_category(bad)


# -- model -------------------------------------------------------------------------------------


def test_ids() -> None:
    assert is_valid_id("0123abcd")
    for bad in ("0123ABCD", "0123abc", "0123abcde", "0123abcg", "", " 0123abcd"):
        assert not is_valid_id(bad)


def test_content_hash_ignores_case_and_spacing_but_not_meaning() -> None:
    base = content_hash("gotcha", "Use the pool", "Never open\na raw connection")
    assert content_hash("gotcha", "  use   THE pool ", "never open a raw  connection\n") == base
    assert content_hash("GOTCHA", "Use the pool", "Never open\na raw connection") == base
    assert content_hash("ｇｏｔｃｈａ", "Use the pool", "Never open a raw connection") == base
    assert content_hash("decision", "Use the pool", "Never open\na raw connection") != base
    assert content_hash("gotcha", "Use the pools", "Never open\na raw connection") != base
    assert content_hash("gotcha", "Use the pool", "") != base
    # the field boundary matters: moving words from summary to details is other knowledge
    assert content_hash("gotcha", "a b", "c") != content_hash("gotcha", "a", "b c")


def test_content_hash_of_stored_memories_is_unchanged() -> None:
    # Hashes as stores written by earlier versions hold them: dedupe compares against these.
    odd = content_hash(
        "gotcha", " Use\u00a0the\tpool ", "\uff2eever\x1c open\u2028a raw\r\n connection \u3000"
    )
    assert odd == "3a108ec4ab9493f3cad2b0e894ffef3f"
    assert content_hash("context", "\u00df stra\u00dfe", "") == "8121a34a8472912d2c5733dc40625f64"


_SPACES = "".join(chr(c) for c in range(0x3100) if chr(c).isspace())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(_SPACES), st.characters()), max_size=40))
def test_hash_normalization_is_nfkc_with_whitespace_runs_collapsed(text: str) -> None:
    expected = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()
    assert _normalize_for_hash(text) == expected


def test_memory_hash_and_dict() -> None:
    memory = Memory(id="1a2b3c4d", category="pref", summary="S", details="D", files=("a",))
    data = memory.to_dict()
    assert data["content_hash"] == content_hash("pref", "S", "D")
    assert data["files"] == ["a"]
    assert memory.is_recallable
    assert not memory.with_changes(status="archived").is_recallable


# Values YAML would read as something else unless quoted, and characters that need escapes.
_TRICKY = st.sampled_from(
    ["yes", "null", "~", "1.5", "0x1f", "2024-01-02", "-a", ".x", "a: b", "#c", "", " lead", "é"]
)
_TEXT = st.one_of(_TRICKY, st.text(max_size=12))


@settings(max_examples=300, deadline=None)
@given(
    memory_id=_TEXT,
    category=st.one_of(st.sampled_from(CATEGORIES), _TEXT),
    files=st.lists(_TEXT, max_size=3).map(tuple),
    anchor=st.one_of(st.none(), _TEXT),
    pinned=st.booleans(),
    guard=st.booleans(),
    status=st.one_of(st.sampled_from(STATUSES), _TEXT),
    links=st.tuples(st.one_of(st.none(), _TEXT), st.one_of(st.none(), _TEXT)),
    created=st.one_of(st.just("2024-05-06T07:08:09+00:00"), _TEXT),
    author=_TEXT,
    source=st.one_of(st.sampled_from(SOURCES), _TEXT),
    body=st.tuples(st.text(min_size=1, max_size=20), st.text(max_size=20)),
)
def test_render_memory_writes_what_the_general_renderer_writes(
    memory_id: str,
    category: str,
    files: tuple[str, ...],
    anchor: str | None,
    pinned: bool,
    guard: bool,
    status: str,
    links: tuple[str | None, str | None],
    created: str,
    author: str,
    source: str,
    body: tuple[str, str],
) -> None:
    memory = Memory(
        id=memory_id,
        category=category,
        summary=body[0],
        details=body[1],
        files=files,
        anchor=anchor,
        pinned=pinned,
        status=status,
        supersedes=links[0],
        superseded_by=links[1],
        created=created,
        author=author,
        source=source,
        guard=guard,
    )
    general = frontmatter.render(front_matter_fields(memory), memory.summary, memory.details)
    assert render_memory(memory) == general


def test_render_memory_keeps_hand_written_keys_through_the_general_renderer() -> None:
    memory = Memory(id="1a2b3c4d", category="context", summary="S", extra={"tags": ["a", "b"]})
    text = render_memory(memory)
    assert text == frontmatter.render(front_matter_fields(memory), "S", "")
    assert "tags:\n  - a\n  - b\n" in text


@settings(max_examples=200, deadline=None)
@given(
    changes=st.dictionaries(
        st.sampled_from(["id", "category", "summary", "details", "status", "author"]),
        st.text(max_size=12),
        max_size=3,
    ),
    hashed_first=st.booleans(),
)
def test_with_changes_is_replace_and_keeps_the_hash_only_when_its_fields_stay(
    changes: dict[str, Any], hashed_first: bool
) -> None:
    memory = Memory(id="0000beef", category="gotcha", summary="s", details="d", files=("a.py",))
    if hashed_first:
        assert memory.content_hash  # the cached property filled before the copy
    copy = memory.with_changes(**changes)
    assert copy == dataclasses.replace(memory, **changes)
    assert copy.extra is memory.extra
    assert copy.content_hash == content_hash(copy.category, copy.summary, copy.details)
    with pytest.raises(TypeError, match="nonsense"):
        memory.with_changes(nonsense=1)
