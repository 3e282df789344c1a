"""A key rewritten in place keeps the comment a person wrote at the end of its line."""

from __future__ import annotations

from recall import frontmatter
from recall.records import KNOWN_KEYS
from recall.yaml_comments import inline_comment

TEXT = (
    "---\n"
    "id: abc\n"
    "category: gotcha\n"
    "files: [src/a.py]  # the old name was b.py\n"
    "pinned: false  # keep unpinned?\n"
    'author: "Ana # not a comment"\n'
    "---\n"
    "summary\n"
)


def test_a_rewritten_value_keeps_its_comment() -> None:
    pinned = frontmatter.update(TEXT, "m.md", {"pinned": True})
    assert "pinned: true  # keep unpinned?\n" in pinned
    assert frontmatter.update(pinned, "m.md", {"pinned": False}) == TEXT


def test_crlf_lines_keep_the_comment_and_the_line_ending() -> None:
    crlf = TEXT.replace("\n", "\r\n")
    assert "pinned: true  # keep unpinned?\r\n" in frontmatter.update(
        crlf, "m.md", {"pinned": True}
    )


def test_a_value_written_on_several_lines_keeps_it_on_the_key_line() -> None:
    moved = frontmatter.update(TEXT, "m.md", {"files": ["src/a.py", "src/c.py"]})
    assert "files:  # the old name was b.py\n  - src/a.py\n  - src/c.py\n" in moved
    assert frontmatter.parse(moved, "m.md").fields["files"] == ["src/a.py", "src/c.py"]


def test_a_removed_key_leaves_its_comment_on_a_line_of_its_own() -> None:
    removed = frontmatter.update(TEXT, "m.md", {"pinned": frontmatter.REMOVE})
    assert "pinned" not in frontmatter.parse(removed, "m.md").fields
    assert "\n# keep unpinned?\n" in removed


def test_a_hash_inside_a_quoted_value_is_no_comment() -> None:
    renamed = frontmatter.update(TEXT, "m.md", {"author": "Bo"})
    assert "author: Bo\n" in renamed
    assert inline_comment('author: "Ana # not a comment"') == ""
    assert inline_comment("key: [a,") == ""  # does not scan alone: nothing is made up


def test_an_indented_hash_line_closing_a_block_scalar_is_its_text() -> None:
    """A key added after a ``|`` value goes after the value's last line, a ``#`` line in it
    being the value's text, not a comment leading into the key that follows."""
    text = (
        "---\nid: 1a2b3c4d\ncategory: gotcha\ncreated: |\n  2026-01-01\n  # of the old tracker\n"
        "---\nretry\n"
    )

    new = frontmatter.update(text, "m.md", {"author": "Dana"}, key_order=KNOWN_KEYS)

    assert new == text.replace("tracker\n", "tracker\nauthor: Dana\n")
    assert frontmatter.parse(new, "m.md").fields["created"] == "2026-01-01\n# of the old tracker\n"


def test_an_indented_comment_between_list_items_leads_into_the_next() -> None:
    """A comment line between two items of a block list belongs to the item after it: it
    stays when the item before it is removed."""
    text = (
        "---\nid: 1a2b3c4d\ncategory: gotcha\nfiles:\n  - src/app.py\n"
        "  # the helper, next, caches\n  - src/util.py\n---\nretry\n"
    )

    new = frontmatter.update(text, "m.md", {"files": ["src/util.py"]}, key_order=KNOWN_KEYS)

    assert new == text.replace("  - src/app.py\n", "")
