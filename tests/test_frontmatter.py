"""The text form of a memory: YAML front matter then the body, read and written losslessly.

Covers the scalar writer, the parser's error locations, and ``update`` (only the named keys
change; the body and hand-written comments survive byte for byte), with hypothesis round trips.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import run_tether
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall import frontmatter
from recall.clock import utc_text
from recall.errors import MalformedMemory
from recall.model import CATEGORIES, SOURCES, STATUSES, Memory
from recall.records import DERIVED_KEYS, KNOWN_KEYS, memory_from_parsed, render_memory

FALLBACK = "2000-01-01T00:00:00+00:00"

TRICKY_STRINGS = [
    "",
    " ",
    "yes",
    "No",
    "on",
    "OFF",
    "null",
    "Null",
    "~",
    "true",
    "0x1F",
    "0o17",
    "017",
    "1_000",
    "1e3",
    "1.5",
    ".5",
    ".inf",
    "-.inf",
    ".nan",
    "12:30",
    "2026-11-30",
    "2026-11-30T21:00:00Z",
    "- item",
    "-dash",
    ".hidden",
    "key: value",
    "# not a comment",
    "a #b",
    "'single'",
    '"double"',
    "back\\slash",
    "tab\there",
    "new\nline",
    "plain\n",
    "A\n\n",
    "cr\rreturn",
    "nel\x85line",
    "ls\u2028ps\u2029",
    "nul\x00byte",
    "bell\x07",
    "bom\ufeff",
    "del\x7f",
    "emoji 🚀",
    "&anchor",
    "*alias",
    "!tag",
    "%directive",
    "@at",
    "`tick",
    "{flow}",
    "[list]",
    "---",
    "...",
    "=",
    "<<",
    "?",
    "|",
    ">",
]


def load_scalar(rendered: str) -> Any:
    """What YAML makes of ``key: <rendered>``."""
    return yaml.safe_load(f"k: {rendered}")["k"]


@pytest.mark.parametrize("text", TRICKY_STRINGS)
def test_scalar_strings_load_back_exactly(text: str) -> None:
    rendered = frontmatter.scalar(text)
    assert "\n" not in rendered
    assert load_scalar(rendered) == text


@pytest.mark.parametrize(
    "value",
    [None, True, False, 0, -1, 10**30, 1.5, -0.25, 1e20, 1e-7, 1.5e300, math.inf, -math.inf],
)
def test_scalar_non_strings_load_back_with_their_type(value: Any) -> None:
    loaded = load_scalar(frontmatter.scalar(value))
    assert loaded == value
    assert type(loaded) is type(value)


def test_scalar_nan_loads_back_as_nan() -> None:
    loaded = load_scalar(frontmatter.scalar(math.nan))
    assert isinstance(loaded, float)
    assert math.isnan(loaded)


@pytest.mark.parametrize(
    "value",
    [
        {"\x85": None},
        {"k": "line\u2028sep", "nel": "a\x85b"},
        {"bom": "\ufeffx", "para": "\u2029"},
        [["\x85"], {"a": "\u2028"}],
        {"ключ": "значение 🚀"},
    ],
)
def test_nested_values_with_unicode_line_breaks_load_back(value: object) -> None:
    lines = frontmatter.render_value("extra", value)
    assert yaml.safe_load("\n".join(lines)) == {"extra": value}


def test_plain_scalars_stay_plain() -> None:
    assert frontmatter.scalar("src/app.py") == "src/app.py"
    assert frontmatter.scalar("gotcha") == "gotcha"
    assert frontmatter.scalar("1a2b3c4d") == "1a2b3c4d"
    assert frontmatter.scalar("12345678") == '"12345678"'
    assert frontmatter.render_value("ключ", {"ключ": "значение"}) == ["ключ:", "  ключ: значение"]


def test_render_then_parse_simple_file() -> None:
    text = frontmatter.render(
        {"id": "1a2b3c4d", "category": "gotcha", "files": ["src/a.py"]}, "Summary", "Line 1\nL2"
    )
    assert text == (
        "---\nid: 1a2b3c4d\ncategory: gotcha\nfiles:\n  - src/a.py\n---\nSummary\n\nLine 1\nL2\n"
    )
    parsed = frontmatter.parse(text, "m.md")
    assert parsed.fields == {"id": "1a2b3c4d", "category": "gotcha", "files": ["src/a.py"]}
    assert parsed.summary == "Summary"
    assert parsed.details == "Line 1\nL2"
    assert parsed.key_lines == {"id": 2, "category": 3, "files": 4}
    assert parsed.body_line == 7


def test_parse_skips_blank_lines_before_summary_and_reports_its_line() -> None:
    parsed = frontmatter.parse("---\ncategory: pref\n---\n\n\n  Summary here  \nmore\n", "m.md")
    assert parsed.summary == "  Summary here  "
    assert parsed.details == "more"
    assert parsed.body_line == 6


def test_parse_accepts_bom_crlf_and_dot_fence() -> None:
    text = "\ufeff---\r\ncategory: gotcha\r\nfiles: [a.py]\r\n...\r\nSummary\r\n"
    parsed = frontmatter.parse(text, "m.md")
    assert parsed.fields == {"category": "gotcha", "files": ["a.py"]}
    assert parsed.summary == "Summary"
    assert parsed.details == ""


def test_empty_front_matter_is_an_empty_mapping() -> None:
    parsed = frontmatter.parse("---\n---\nJust a summary\n", "m.md")
    assert parsed.fields == {}
    assert parsed.summary == "Just a summary"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("category: gotcha\n---\nS\n", 1, "no front matter"),
        ("", 1, "no front matter"),
        ("---\ncategory: gotcha\nS\n", 1, "not closed"),
        ("---\ncategory: gotcha\nfiles: [a\n---\nS\n", 4, "bad YAML"),
        ("---\nid: x\ncategory: gotcha\n  bad: indent\n---\nS\n", 4, "bad YAML"),
        ("---\n- a\n- b\n---\nS\n", 2, "mapping"),
        ("---\nx: !!python/object:os.system {}\n---\nS\n", 2, "bad YAML"),
    ],
)
def test_parse_errors_carry_path_and_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(MalformedMemory) as caught:
        frontmatter.parse(text, "mem/x.md")
    assert caught.value.path == "mem/x.md"
    assert caught.value.line == line
    assert fragment in caught.value.problem
    assert str(caught.value).startswith(f"mem/x.md:{line}: ")


def test_missing_summary_is_none_with_body_line() -> None:
    parsed = frontmatter.parse("---\ncategory: gotcha\n---\n\n   \n", "m.md")
    assert parsed.summary is None


# -- update ---------------------------------------------------------------------------------

HAND_WRITTEN = (
    "---\n"
    "# written by hand, keep me\n"
    "id: 1a2b3c4d\n"
    "category: gotcha   # inline note on category\n"
    "files:\n"
    "  - src/app.py\n"
    "  - src/util.py\n"
    "\n"
    "pinned: false\n"
    "# a comment between keys\n"
    "status: active\n"
    "custom_key: {a: 1}\n"
    "---\n"
    "Summary line\n"
    "\n"
    "Details with trailing spaces   \n"
    "---\n"
    "and a fake fence in the body\n"
)


def body_of(text: str) -> str:
    """Everything after the closing fence, byte for byte."""
    lines = text.split("\n")
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r") in ("---", "..."):
            return "\n".join(lines[index + 1 :])
    raise AssertionError("no closing fence")


def test_update_changes_only_the_named_key() -> None:
    new = frontmatter.update(HAND_WRITTEN, "m.md", {"pinned": True})
    assert new == HAND_WRITTEN.replace("pinned: false\n", "pinned: true\n")


def test_update_appends_absent_keys_and_removes_with_sentinel() -> None:
    new = frontmatter.update(
        HAND_WRITTEN, "m.md", {"superseded_by": "9f8e7d6c", "custom_key": frontmatter.REMOVE}
    )
    assert "custom_key" not in new
    assert new.index("superseded_by: 9f8e7d6c") < new.index("---\nSummary line")
    fields = frontmatter.parse(new, "m.md").fields
    assert fields["superseded_by"] == "9f8e7d6c"
    assert "custom_key" not in fields
    assert body_of(new) == body_of(HAND_WRITTEN)
    for comment in ("# written by hand, keep me", "# inline note", "# a comment between keys"):
        assert comment in new


def test_update_of_a_list_key_keeps_the_blank_line_after_it() -> None:
    new = frontmatter.update(HAND_WRITTEN, "m.md", {"files": ["docs/guide.md"]})
    assert "files:\n  - docs/guide.md\n\npinned: false\n" in new
    assert frontmatter.parse(new, "m.md").fields["files"] == ["docs/guide.md"]


def test_update_keeps_crlf_body_and_bom_byte_identical() -> None:
    text = "\ufeff---\r\ncategory: gotcha\r\npinned: false\r\n---\r\nSummary\r\n\r\nDetails\r\n"
    new = frontmatter.update(text, "m.md", {"pinned": True})
    assert new.startswith("\ufeff---\r\n")
    assert new.endswith("---\r\nSummary\r\n\r\nDetails\r\n")
    assert frontmatter.parse(new, "m.md").fields["pinned"] is True


def test_update_keeps_a_margin_comment_inside_the_rewritten_value() -> None:
    # A column-0 comment inside the list: the list is still the one key's, its note is kept.
    text = "---\ncategory: gotcha\nfiles:\n  - a.py\n# odd place\n  - b.py\n---\nS\n"
    new = frontmatter.update(text, "m.md", {"files": ["c.py"]})
    assert new == "---\ncategory: gotcha\nfiles:\n  - c.py\n# odd place\n---\nS\n"


def test_update_refuses_rather_than_corrupting() -> None:
    # A flow mapping's comment has no line of its own to stay on once laid out as lines.
    text = "---\n{category: gotcha,  # why\n files: [a.py]}\n---\nS\n"
    with pytest.raises(MalformedMemory) as refused:
        frontmatter.update(text, "m.md", {"pinned": True})
    assert refused.value.line == 2
    assert "bad YAML" not in str(refused.value)
    assert "`key: value` line of its own" in str(refused.value)


def test_update_on_text_without_front_matter_raises() -> None:
    with pytest.raises(MalformedMemory):
        frontmatter.update("no fence\n", "m.md", {"pinned": True})


# -- hypothesis: whole memories round trip --------------------------------------------------

ids = st.from_regex(r"[0-9a-f]{8}", fullmatch=True)
no_surrogates = st.characters(blacklist_categories=("Cs",))
any_text = st.text(no_surrogates, max_size=40)
summaries = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), min_size=1
).filter(lambda s: s.strip() != "")
segment = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00\n\r"),
    min_size=1,
    max_size=12,
)
path_like = st.lists(segment, min_size=1, max_size=4).map("/".join)
YAML_SPECIAL_KEYS = ["yes", "no", "on", "off", "null", "true", "false", "y", "n", "1_0", "010"]
extra_keys = st.one_of(
    st.from_regex(r"[a-z_][a-z0-9_-]{0,12}", fullmatch=True), st.sampled_from(YAML_SPECIAL_KEYS)
).filter(lambda k: k not in KNOWN_KEYS and k not in DERIVED_KEYS)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    any_text,
    st.sampled_from(TRICKY_STRINGS),
)
extra_values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    st.dictionaries(any_text, scalars, max_size=3),
    st.lists(st.lists(scalars, max_size=2), max_size=2),
)


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    """Any memory the writer must be able to store and read back."""
    return Memory(
        id=draw(ids),
        category=draw(st.sampled_from(CATEGORIES)),
        summary=draw(summaries),
        details=draw(st.text(no_surrogates)),
        files=tuple(draw(st.lists(path_like, max_size=4))),
        anchor=draw(st.none() | st.text(no_surrogates, min_size=1, max_size=30)),
        pinned=draw(st.booleans()),
        status=draw(st.sampled_from(STATUSES)),
        supersedes=draw(st.none() | ids),
        superseded_by=draw(st.none() | ids),
        # a time, kept in UTC as the loader keeps it (anything else in a file is its problem)
        created=utc_text(draw(st.datetimes(timezones=st.just(UTC)))),
        author=draw(any_text),
        source=draw(st.sampled_from(SOURCES)),
        extra=draw(st.dictionaries(extra_keys, extra_values, max_size=3)),
    )


def reload(memory: Memory, name: str = "m.md") -> Memory:
    """Write a memory to text and read it back."""
    text = render_memory(memory)
    return memory_from_parsed(frontmatter.parse(text, name), name, fallback_created=FALLBACK)


def same_value(a: Any, b: Any) -> bool:
    """Equality that also distinguishes bool from int and float from int, recursively."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memories())
def test_memory_round_trips_through_text(memory: Memory) -> None:
    loaded = reload(memory)
    expected = memory.with_changes(details=memory.details if memory.details.strip() else "")
    assert loaded == expected
    assert same_value(loaded.extra, memory.extra)
    assert loaded.content_hash == expected.content_hash


@settings(max_examples=100, deadline=None)
@given(memories())
def test_rendering_is_stable(memory: Memory) -> None:
    once = reload(memory)
    assert render_memory(once) == render_memory(reload(once))


# -- hypothesis: update --------------------------------------------------------------------

KEY_LINE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*\s*:")
updatable = {
    "pinned": st.booleans(),
    "status": st.sampled_from(STATUSES),
    "superseded_by": ids | st.just(frontmatter.REMOVE),
    "anchor": st.text(no_surrogates, min_size=1, max_size=20) | st.just(frontmatter.REMOVE),
    "author": any_text,
    "files": st.lists(path_like, max_size=3),
    "note_added_later": scalars,
}
decorations = st.sampled_from(["", "# a hand comment", "#no space comment", "# key: not a key"])


@st.composite
def files_and_changes(draw: st.DrawFn) -> tuple[list[tuple[str, list[str]]], dict[str, Any]]:
    """Front-matter blocks (key, lines) with hand decorations, and a set of changes."""
    memory = draw(memories()).with_changes(extra={})
    fields = {
        "id": memory.id,
        "category": memory.category,
        "files": list(memory.files),
        "anchor": memory.anchor or "L10-20",
        "pinned": memory.pinned,
        "status": memory.status,
        "created": memory.created,
        "author": memory.author,
        "source": memory.source,
    }
    blocks: list[tuple[str, list[str]]] = []
    for key, value in fields.items():
        for _ in range(draw(st.integers(0, 2))):
            blocks.append(("", [draw(decorations)]))
        blocks.append((key, frontmatter.render_value(key, value)))
    if draw(st.booleans()):
        blocks.append(("", ["# trailing comment"]))
    keys = draw(st.lists(st.sampled_from(sorted(updatable)), unique=True, min_size=1))
    changes = {key: draw(updatable[key]) for key in keys}
    return blocks, changes


@settings(max_examples=200, deadline=None)
@given(files_and_changes(), summaries, st.text(no_surrogates))
def test_update_rewrites_only_named_keys(
    case: tuple[list[tuple[str, list[str]]], dict[str, Any]], summary: str, details: str
) -> None:
    blocks, changes = case
    body = summary + "\n\n" + details + "\n"
    text = "---\n" + "".join(line + "\n" for _, lines in blocks for line in lines) + "---\n" + body

    new = frontmatter.update(text, "m.md", changes)

    expected_fm: list[str] = []
    present = {key for key, _ in blocks if key}
    for key, lines in blocks:
        if key in changes:
            value = changes[key]
            expected_fm.extend(
                [] if value is frontmatter.REMOVE else frontmatter.render_value(key, value)
            )
        else:
            expected_fm.extend(lines)
    for key, value in changes.items():
        if key not in present and value is not frontmatter.REMOVE:
            expected_fm.extend(frontmatter.render_value(key, value))
    assert new == "---\n" + "".join(line + "\n" for line in expected_fm) + "---\n" + body

    before = frontmatter.parse(text, "m.md").fields
    after = frontmatter.parse(new, "m.md").fields
    for key, value in changes.items():
        if value is frontmatter.REMOVE:
            before.pop(key, None)
        else:
            before[key] = list(value) if isinstance(value, tuple) else value
    assert after == before


@pytest.mark.parametrize(
    ("text", "line", "key", "first"),
    [
        ("---\ncategory: gotcha\ncategory: pref\n---\nS\n", 3, "category", 2),
        ("---\nid: x\nmeta:\n  k: 1\n  other: 2\n  k: 3\n---\nS\n", 6, "k", 4),
        ("---\nmeta: {k: 1, k: 2}\n---\nS\n", 2, "k", 2),
        ('---\n1: one\n"1": also one\n---\nS\n', 3, "1", 2),
    ],
)
def test_a_key_given_twice_is_a_problem_at_its_second_line(
    text: str, line: int, key: str, first: int
) -> None:
    with pytest.raises(MalformedMemory) as caught:
        frontmatter.parse(text, "mem/x.md")
    assert caught.value.line == line
    assert f"key {key!r} is given twice (first on line {first})" in caught.value.problem
    assert "delete the one you do not mean" in caught.value.problem


def test_a_merged_key_may_be_given_again_to_override_it() -> None:
    text = "---\nbase: &b {a: 1, c: 3}\nm:\n  <<: *b\n  a: 2\n---\nS\n"
    assert frontmatter.parse(text, "m.md").fields["m"] == {"a": 2, "c": 3}


def test_a_memory_file_giving_a_key_twice_is_reported_and_never_rewritten(repo: Path) -> None:
    made = run_tether("--json", "remember", "login retries stay at three", "-c", "gotcha", cwd=repo)
    assert made.code == 0, made.stderr
    memory_id = json.loads(made.stdout)["id"]
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    text = path.read_text().replace("category: gotcha\n", "category: gotcha\ncategory: pref\n")
    path.write_bytes(text.encode())
    second = text.splitlines().index("category: pref") + 1
    where = f"{memory_id}.md:{second}: key 'category' is given twice"
    listed = run_tether("list", cwd=repo)
    assert where in listed.stderr and "login retries" not in listed.stdout
    doctor = run_tether("doctor", cwd=repo)
    assert doctor.code != 0 and where in doctor.stdout + doctor.stderr
    assert "No problems found" not in doctor.stdout
    pinned = run_tether("pin", memory_id, cwd=repo)
    assert pinned.code != 0 and where in pinned.stderr
    assert path.read_bytes() == text.encode()
