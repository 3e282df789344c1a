"""A write given the text it holds for a file (an editor's buffer not saved) records an
anchor's body hash from that text, as the working tree's file will give it once saved, and
says why when that text is not read for symbols."""

from __future__ import annotations

from pathlib import Path

from conftest import make_repo

from recall.anchors.write import bare_name_anchor, record_anchors
from recall.genome.limits import MAX_SCAN_BYTES

BEFORE = "def old():\n    return 1\n"
TYPED = BEFORE + "\n\ndef brand_new(x):\n    return x * 3\n"


def test_a_held_text_is_read_instead_of_the_file(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"src/a.py": BEFORE})
    held = {"src/a.py": TYPED, "src/new.py": TYPED}
    (typed, new), notes = record_anchors(
        root, [("src/a.py", "brand_new"), ("src/new.py", "brand_new")], held=held
    )
    assert notes == []
    (root / "src" / "a.py").write_text(TYPED)  # saved: the tree gives the same hash
    (saved,), _ = record_anchors(root, [("src/a.py", "brand_new")])
    assert saved.body is not None and typed.body == saved.body == new.body
    assert bare_name_anchor(root, ["src/new.py"], "brand_new", held=held) == (
        ("src/new.py", "brand_new"),
        None,
    )


def test_a_held_text_too_large_to_read_is_said(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"src/a.py": BEFORE})
    huge = TYPED + "#" * MAX_SCAN_BYTES
    (anchor,), (note,) = record_anchors(root, [("src/a.py", "old")], held={"src/a.py": huge})
    assert anchor.body is None
    assert "src/a.py is not read for symbols" in note and f"{len(huge):,} bytes" in note
