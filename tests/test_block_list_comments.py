"""A block list rewritten (``files`` by a repoint, ``anchors`` by a confirm) is rewritten item by
item: an item unchanged keeps its line, a changed one its comment, and a comment that would be
lost makes the command refuse, naming its line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git

from recall import frontmatter
from recall.errors import MalformedMemory

Cli = Callable[..., CliResult]

FILES = (
    "---\n"
    "category: gotcha\n"
    "files:\n"
    "  # the renamed one, keep an eye on it\n"
    "  - src/b.py   # was the store\n"
    "  - 'src/a.py'   # entry\n"
    "pinned: false  # why not\n"
    "---\n"
    "body\n"
)


def test_a_renamed_item_keeps_its_comment_and_the_others_their_lines() -> None:
    new = frontmatter.update(FILES, "m.md", {"files": ["src/c.py", "src/a.py"]})
    assert new == FILES.replace("src/b.py ", "src/c.py ")


def test_a_removed_item_takes_its_own_comment_and_an_added_one_follows() -> None:
    new = frontmatter.update(FILES, "m.md", {"files": ["src/a.py", "src/d.py"]})
    assert "files:\n  # the renamed one, keep an eye on it\n  - 'src/a.py'   # entry\n" in new
    assert "  - 'src/a.py'   # entry\n  - src/d.py\npinned: false  # why not\n" in new


ANCHORS = (
    "---\n"
    "category: gotcha\n"
    "anchors:\n"
    "  - symbol: src/a.py::f   # the entry point\n"
    '    reviewer: "Dana"\n'
    "  - src/a.py::g  # second\n"
    "---\n"
    "body\n"
)


def test_a_key_added_to_an_entry_goes_inside_it_at_its_indentation() -> None:
    anchors = [{"symbol": "src/a.py::f", "body": "abc", "reviewer": "Dana"}, "src/a.py::g"]
    new = frontmatter.update(ANCHORS, "m.md", {"anchors": anchors})
    assert new == ANCHORS.replace('    reviewer: "Dana"\n', '    body: abc\n    reviewer: "Dana"\n')


def test_a_comment_that_cannot_be_kept_is_refused_naming_its_line() -> None:
    text = "---\ncategory: gotcha\nfiles:\n  - - a.py\n    - c.py  # nested\n---\nbody\n"
    with pytest.raises(MalformedMemory) as refused:
        frontmatter.update(text, "m.md", {"files": ["b.py"]})
    assert refused.value.line == 5
    assert "# nested" in str(refused.value)


MEMORY = """---
category: gotcha
files:
  # the renamed one, keep an eye on it
  - src/b.py   # was the store
  - src/util.py   # entry
anchors:
  - symbol: src/util.py::helper   # the entry point
    reviewer: "Dana"
pinned: false  # why not
---
Comments in lists
"""


def test_repoint_and_confirm_keep_the_comments_in_block_lists(repo: Path, cli: Cli) -> None:
    (repo / "src" / "b.py").write_text("y = 1\n", encoding="utf-8")
    assert cli("init").code == 0
    path = repo / ".tether" / "memories" / "55550001.md"
    path.write_text(MEMORY, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory")
    git(repo, "mv", "src/b.py", "src/c.py")
    git(repo, "commit", "-qm", "move")
    for command in (["repoint", "55550001", "--apply"], ["confirm", "55550001"]):
        done = cli(*command)
        assert done.code == 0, f"{command}: {done.stderr}"
    text = path.read_text(encoding="utf-8")
    kept = MEMORY.split("---\n")[1].replace("src/b.py ", "src/c.py ")
    kept = kept.replace('    reviewer: "Dana"\n', "")
    for line in kept.splitlines():
        assert line in text.splitlines(), line
    entry = "  - symbol: src/util.py::helper   # the entry point\n    body: "
    assert entry in text
    assert '\n    reviewer: "Dana"\npinned: false  # why not\n' in text


FLOW_ENTRY = (
    "---\n"
    "category: gotcha\n"
    "files: [a.py]\n"
    "anchors:\n"
    '  - {symbol: "a.py::foo", body: old}  # written by hand\n'
    "---\n"
    "body\n"
)


def test_an_entry_written_as_a_flow_mapping_is_written_anew_with_its_comment() -> None:
    """An anchor written ``{...}`` on its line has no style of a scalar: its rewrite writes
    the entry anew (its line's comment kept), where it raised an AttributeError."""
    changed = [{"symbol": "a.py::foo", "body": "new"}]
    new = frontmatter.update(FLOW_ENTRY, "m.md", {"anchors": changed})
    assert "# written by hand" in new
    assert frontmatter.parse(new, "m.md").fields["anchors"] == changed


def test_confirm_of_a_hand_written_flow_anchor_records_its_body(cli: Cli, repo: Path) -> None:
    (repo / "a.py").write_text("def foo():\n    return 1\n", encoding="utf-8")
    git(repo, "add", "a.py")
    git(repo, "commit", "-qm", "foo")
    folder = repo / ".tether" / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "abcd1234.md").write_text(FLOW_ENTRY, encoding="utf-8")
    done = cli("confirm", "abcd1234")
    assert done.code == 0, done.err
    text = (folder / "abcd1234.md").read_text(encoding="utf-8")
    assert "# written by hand" in text and "body: old" not in text


@pytest.mark.parametrize("emptied", [[], frontmatter.REMOVE])
def test_a_list_emptied_or_removed_goes_as_its_items_would_one_by_one(emptied: object) -> None:
    """Every item taken away at once takes the comments at the end of their lines, as each
    removed alone does; a comment on a line of its own stays (it was refused before)."""
    new = frontmatter.update(FILES, "m.md", {"files": emptied})
    assert "  # the renamed one, keep an eye on it\n" in new
    assert "was the store" not in new and "entry" not in new
    assert "pinned: false  # why not\n" in new
    fields = frontmatter.parse(new, "m.md").fields
    assert fields.get("files") == ([] if emptied == [] else None)
    assert fields["pinned"] is False
