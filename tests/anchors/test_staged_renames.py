"""A rename only staged (``git mv`` not committed yet) keeps the file's guards before an edit, as
a committed one does: the pre-edit hook asks git's index for the rename when the edited file is
one no indexed commit knows by its name, and follows it (then the earlier names git's history
gives the old name). The real hook command, real repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall.hooks import LOG_NAME
from recall.locations import project_location

from .test_guard_fallback_names import _damage
from .test_guard_renames import SOURCE, asks_through_the_rename, commit_all, pre_edit, remember

Run = Callable[..., CliResult]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"retry.py": SOURCE, "README.md": "# demo\n"})


def guarded_and_indexed(repo: Path, cli: Run) -> tuple[str, str]:
    """A guarded decision and a gotcha on retry.py, committed and indexed: their ids."""
    guard = remember(cli, "retries stay at three", "decision", "--guard")
    gotcha = remember(cli, "fetch must not be called in a loop", "gotcha")
    commit_all(repo, "memories")
    assert cli("index").code == 0
    return guard, gotcha


def test_the_edit_hook_asks_about_a_rename_only_staged(repo: Path, cli: Run) -> None:
    guard, gotcha = guarded_and_indexed(repo, cli)
    git(repo, "mv", "retry.py", "net_retry.py")
    answer = pre_edit(cli, repo, "net_retry.py")
    asks_through_the_rename(answer, guard, gotcha)
    assert pre_edit(cli, repo, "README.md") is None  # another file: nothing to ask


def test_a_staged_rename_of_a_file_renamed_in_a_commit_since_the_index(
    repo: Path, cli: Run
) -> None:
    # retry.py -> net_retry.py committed (not indexed), then net_retry.py -> http_retry.py staged
    guard, _ = guarded_and_indexed(repo, cli)
    git(repo, "mv", "retry.py", "net_retry.py")
    commit_all(repo, "retry.py becomes net_retry.py")
    git(repo, "mv", "net_retry.py", "http_retry.py")
    answer = pre_edit(cli, repo, "http_retry.py")
    assert answer is not None
    assert (
        f"[{guard}] covers http_retry.py (renamed from retry.py);"
        in (answer["permissionDecisionReason"])
    )


def test_the_plain_fallback_follows_a_staged_rename(repo: Path, cli: Run) -> None:
    guard, _ = guarded_and_indexed(repo, cli)
    assert pre_edit(cli, repo, "README.md") is None  # the guard tables exist from here on
    git(repo, "mv", "retry.py", "net_retry.py")
    location = project_location(repo)
    _damage(location.index_path, "usage")
    answer = pre_edit(cli, repo, "net_retry.py")
    log = (location.base / LOG_NAME).read_text(encoding="utf-8")
    assert "the guard check of net_retry.py failed" in log  # the fallback answered
    assert answer is not None
    assert (
        f"[{guard}] covers net_retry.py (renamed from retry.py)"
        in (answer["permissionDecisionReason"])
    )


def test_a_new_file_staged_beside_the_guarded_one_is_no_rename(repo: Path, cli: Run) -> None:
    # a copy added, the guarded file still there: git stages an addition, not a rename
    guarded_and_indexed(repo, cli)
    (repo / "copy_retry.py").write_text(SOURCE)
    git(repo, "add", "copy_retry.py")
    assert pre_edit(cli, repo, "copy_retry.py") is None
