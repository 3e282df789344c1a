"""A guarded memory failed at two places of one change is said once, each different fix once:
a fix that another says in full plus an aside (``(or `tether repoint …` after the move)``) is
not said again after it."""

from __future__ import annotations

from recall.anchors.findings import FAIL, Finding, guard_fix, one_failure_per_memory
from recall.model import Memory

GUARDED = Memory("a1b2c3d4", "decision", "keep the save order", guard=True)


def test_a_fix_said_with_an_aside_is_not_said_again() -> None:
    moved = Finding(
        FAIL, GUARDED, "src/util.py", 1, "moves symbol helper", guard_fix(GUARDED, True)
    )
    edited = Finding(FAIL, GUARDED, "src/util.py", 3, "the change edits helper", guard_fix(GUARDED))
    (merged,) = one_failure_per_memory([moved, edited])
    said = merged.said
    assert said.count("tether confirm a1b2c3d4") == 1, said
    assert said.count("commit the memory with the change") == 1, said
    assert "(or `tether repoint a1b2c3d4 --apply` after the move)" in said
    assert said.startswith("moves symbol helper; and the change edits helper, under a guarded")
    assert merged.to_dict()["guard"] is True


def test_different_fixes_are_each_said() -> None:
    renamed = guard_fix(GUARDED, renamed=("src/a.py", "src/b.py"))
    first = Finding(FAIL, GUARDED, "src/b.py", 1, "the change edits src/b.py", renamed)
    second = Finding(FAIL, GUARDED, "src/c.py", 2, "the change edits helper", guard_fix(GUARDED))
    (merged,) = one_failure_per_memory([first, second])
    assert "git's history shows src/a.py renamed to src/b.py" in merged.said
    assert merged.said.count("commit the memory with the change") == 2
