"""A rename only staged (``git mv`` not committed yet) keeps the file's guards before an edit, as
a committed one does: the pre-edit hook asks git's index for the rename when the edited file is
one HEAD's tree does not hold under its name as the genome indexed it (new, or a name an earlier
commit deleted), and follows it (then the earlier names git's history gives the old name). The
real hook command, real repositories."""

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


def delete_committed(repo: Path, path: str) -> None:
    """A file at ``path`` added in one commit and deleted in the next: the history knows it."""
    (repo / path).write_text("def gone():\n    return 0\n")
    commit_all(repo, f"add {path}")
    git(repo, "rm", "-q", path)
    commit_all(repo, f"delete {path}")


def test_a_rename_staged_onto_a_name_an_earlier_commit_deleted(repo: Path, cli: Run) -> None:
    delete_committed(repo, "net_retry.py")
    guard, gotcha = guarded_and_indexed(repo, cli)
    git(repo, "mv", "retry.py", "net_retry.py")
    asks_through_the_rename(pre_edit(cli, repo, "net_retry.py"), guard, gotcha)
    assert pre_edit(cli, repo, "README.md") is None  # a file HEAD holds: nothing to ask


def test_a_rename_onto_a_deleted_name_staged_while_the_genome_refreshed(
    repo: Path, cli: Run
) -> None:
    # the refresh lists git's index, which holds the new name: it is still no file of HEAD's
    delete_committed(repo, "net_retry.py")
    guard, gotcha = guarded_and_indexed(repo, cli)
    git(repo, "mv", "retry.py", "net_retry.py")
    assert cli("index").code == 0
    asks_through_the_rename(pre_edit(cli, repo, "net_retry.py"), guard, gotcha)
    commit_all(repo, "retry.py becomes net_retry.py")
    committed = pre_edit(cli, repo, "net_retry.py")  # the commit leaves nothing staged behind
    assert committed is not None
    assert (
        f"[{guard}] covers net_retry.py (renamed from retry.py);"
        in (committed["permissionDecisionReason"])
    )


def test_a_staged_rename_onto_a_deleted_name_leaves_that_names_past_out(
    repo: Path, cli: Run
) -> None:
    # old_net.py became net_retry.py, deleted since; retry.py is now staged onto that name
    (repo / "old_net.py").write_text("def old():\n    return 0\n")
    stale = cli(
        "remember", "the pool is shared", "-c", "decision", "--guard", "-f", "old_net.py", "--json"
    )
    assert stale.code == 0, stale.stderr
    stale_id = str(stale.json()["id"])
    commit_all(repo, "old_net.py")
    git(repo, "mv", "old_net.py", "net_retry.py")
    commit_all(repo, "old_net.py becomes net_retry.py")
    git(repo, "rm", "-q", "net_retry.py")
    commit_all(repo, "delete net_retry.py")
    guard, _ = guarded_and_indexed(repo, cli)
    git(repo, "mv", "retry.py", "net_retry.py")
    staged = pre_edit(cli, repo, "net_retry.py")
    assert staged is not None
    assert f"[{guard}]" in staged["permissionDecisionReason"]
    assert f"[{stale_id}]" not in staged["permissionDecisionReason"]
    commit_all(repo, "retry.py becomes net_retry.py")
    committed = pre_edit(cli, repo, "net_retry.py")
    assert committed is not None  # the commit follows the same names
    assert committed["permissionDecisionReason"] == staged["permissionDecisionReason"]


def test_a_rename_amended_into_the_last_commit_keeps_the_guard(repo: Path, cli: Run) -> None:
    # the amend rewrites the commit the genome read: the hook does not read a rewritten
    # history, so the rename is asked of git against the commit it did read
    guard, gotcha = guarded_and_indexed(repo, cli)
    git(repo, "mv", "retry.py", "net_retry.py")
    git(repo, "commit", "-q", "--amend", "-m", "memories, and retry.py is net_retry.py")
    asks_through_the_rename(pre_edit(cli, repo, "net_retry.py"), guard, gotcha)
    assert pre_edit(cli, repo, "README.md") is None


def test_a_rename_on_a_branch_forked_before_the_index_keeps_the_guard(repo: Path, cli: Run) -> None:
    guard, gotcha = guarded_and_indexed(repo, cli)
    git(repo, "checkout", "-q", "-b", "topic", "HEAD~1")  # forked before the memories' commit
    git(repo, "checkout", "-q", "main", "--", ".tether")  # the memories, as a merge brings them
    git(repo, "mv", "retry.py", "net_retry.py")
    commit_all(repo, "retry.py is net_retry.py, with the memories")
    asks_through_the_rename(pre_edit(cli, repo, "net_retry.py"), guard, gotcha)
