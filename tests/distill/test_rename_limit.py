"""A file renamed since, among more files than the repository's ``diff.renameLimit`` lets git
pair, is still tied by its name now; and when git does give up pairing (past Tether's own
limit), distill says so instead of calling the file gone."""

from __future__ import annotations

import pytest
from conftest import git

from recall.genome import limits

from .conftest import History
from .test_distill import GOTCHAS, run

MOVED = 4


def _move_with_edits(history: History) -> None:
    """Rename ``src/m0.py``… to ``lib/n0.py``…, each changed a little (no exact rename, no
    shared base name: only git's exhaustive pass pairs them), in one commit."""
    for i in range(MOVED):
        text = (history.root / f"src/m{i}.py").read_text(encoding="utf-8")
        git(history.root, "rm", "-q", f"src/m{i}.py")
        (history.root / "lib").mkdir(exist_ok=True)
        (history.root / f"lib/n{i}.py").write_text(text + "# moved\n", encoding="utf-8")
    git(history.root, "add", "-A")
    git(history.root, "commit", "-q", "-m", "Move the modules to lib")


def _setup(history: History) -> str:
    for i in range(MOVED):
        body = "".join(f"value_{i}_{j} = {j}\n" for j in range(12))
        (history.root / "src").mkdir(exist_ok=True)
        (history.root / f"src/m{i}.py").write_text(body, encoding="utf-8")
    git(history.root, "add", "-A")
    git(history.root, "commit", "-q", "-m", "Add the modules")
    git(history.root, "config", "diff.renameLimit", "1")  # git alone would pair none of them
    start = history.head()
    history.commit(GOTCHAS[0], "src/m0.py")
    _move_with_edits(history)
    return start


def test_the_rename_limit_is_pinned() -> None:
    assert limits.RENAME_LIMIT == 7000


def test_a_file_moved_with_more_files_than_the_rename_limit_is_tied_by_its_name_now(
    history: History,
) -> None:
    start = _setup(history)
    (written,) = run(history, start).written
    assert history.fields(written.id)["files"] == ["lib/n0.py"]


def test_renames_git_did_not_look_for_are_said_so(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = _setup(history)
    monkeypatch.setattr(limits, "RENAME_LIMIT", 1)
    report = run(history, start)
    assert report.written == []
    reason = report.outcomes[0].reason
    assert "git did not look for where src/m0.py went" in reason
    assert "gone" not in reason
