"""``git cat-file --batch`` answers read back by the spec each answers: a file with spaces in
its name, a missing one, a tree, and a submodule (newer git answers ``<id> submodule`` with no
content) leave the answers after them readable."""

from __future__ import annotations

from recall.anchors.prior import batch_answers

SPECS = [("c1", "a b.c"), ("c1", "gone.c"), ("c1", "vendor/lib"), ("c1", "src"), ("c1", "x.c")]


def test_every_answer_is_read_past_a_submodule_and_a_tree() -> None:
    out = (
        b"1111 blob 5\nhello\n"
        b"c1:./gone.c missing\n"
        b"2222 submodule\n"
        b"3333 tree 4\n\x00\x01\x02\x03\n"
        b"4444 blob 3\nint\n"
    )
    found = batch_answers(out, SPECS)
    assert found == {
        ("c1", "a b.c"): b"hello",
        ("c1", "gone.c"): None,
        ("c1", "vendor/lib"): None,
        ("c1", "src"): None,
        ("c1", "x.c"): b"int",
    }


def test_a_cut_answer_leaves_the_rest_unknown() -> None:
    found = batch_answers(b"1111 blob 5\nhello\n2222 bl", SPECS)
    assert found[("c1", "a b.c")] == b"hello"
    assert found.get(("c1", "x.c")) is None
