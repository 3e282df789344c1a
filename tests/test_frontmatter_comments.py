"""A key rewritten in place keeps the comment a person wrote at the end of its line."""

from __future__ import annotations

from recall import frontmatter
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
