"""A commit whose files were renamed since is distilled to the files' names now, and a file
whose name a memory file cannot hold is said to be that, not gone."""

from __future__ import annotations

import os

from conftest import git

from recall.distill import read_commits

from .conftest import History
from .test_distill import GOTCHAS, run


def test_a_file_renamed_since_is_tied_by_its_name_now(history: History) -> None:
    start = history.head()
    history.commit(GOTCHAS[0], "src/b.py")
    git(history.root, "mv", "src/b.py", "src/c.py")
    git(history.root, "commit", "-q", "-m", "Move b to c")
    git(history.root, "mv", "src/c.py", "lib.py")  # renamed twice
    git(history.root, "commit", "-q", "-m", "Move c to lib")
    dry = run(history, start, dry_run=True)
    assert [o.summary for o in dry.written] == [GOTCHAS[0]]
    (written,) = run(history, start).written
    assert history.fields(written.id)["files"] == ["lib.py"]


def test_a_file_gone_for_good_is_still_said_gone(history: History) -> None:
    start = history.head()
    history.commit(GOTCHAS[0], "src/b.py")
    git(history.root, "rm", "-q", "src/b.py")
    git(history.root, "commit", "-q", "-m", "Drop b")
    report = run(history, start)
    assert report.written == []
    assert (
        report.outcomes[0].reason
        == "no file it changed is left to tie a memory to (gone, or Tether's own)"
    )


def test_a_name_that_is_not_utf8_is_said_so_and_a_rename_ties_it(history: History) -> None:
    start = history.head()
    name = os.fsdecode(b"caf\xe9.py")
    (history.root / name).write_bytes(b"x = 1\n")
    git(history.root, "add", "--", name)
    git(history.root, "commit", "-q", "-m", GOTCHAS[1])
    (commit,) = read_commits(history.root, since_commit=start)
    assert (history.root / commit.files[0]).is_file()  # there: not gone
    report = run(history, start)
    assert report.written == []
    reason = report.outcomes[0].reason
    assert "gone" not in reason
    assert "'caf\\xe9.py' is not valid UTF-8" in reason
    assert "rename the file" in reason
    git(history.root, "mv", "--", name, "cafe.py")  # as the reason says
    git(history.root, "commit", "-q", "-m", "Rename to UTF-8")
    (written,) = run(history, start).written
    assert history.fields(written.id)["files"] == ["cafe.py"]
