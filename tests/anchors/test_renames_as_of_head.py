"""A rename committed after the last ``tether index`` (a ``git mv`` an agent commits and then
edits in the same turn) is followed at once, as recall follows it: the pre-edit hook's guard
(its full check and its plain fallback), ``list --file``, ``remember``'s note on the old name
and ``tether check`` read git's renames as of HEAD, never as some earlier command left them.
The hooks catch up with the commits since the last refresh only: a genome never built, or
whose history was rewritten, is left for the next recall or ``tether index``. The real CLI and
hook command, real repositories."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall.hooks import LOG_NAME
from recall.locations import project_location

from .test_guard_fallback_names import _damage
from .test_guard_renames import SOURCE, asks_through_the_rename, commit_all, pre_edit, remember
from .test_reused_names import NEW, OLD, at, commit
from .test_reused_names import pre_edit as pre_edit_text
from .test_reused_names import remember as remember_on_day

Run = Callable[..., CliResult]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"retry.py": SOURCE, "README.md": "# demo\n"})


def renamed_since_the_index(repo: Path, cli: Run) -> tuple[str, str]:
    """A guarded decision and a gotcha on retry.py, indexed; then ``git mv retry.py
    net_retry.py`` committed and nothing run since: the two memories' ids."""
    guard = remember(cli, "retries stay at three", "decision", "--guard")
    gotcha = remember(cli, "fetch must not be called in a loop", "gotcha")
    commit_all(repo, "memories")
    assert cli("index").code == 0
    git(repo, "mv", "retry.py", "net_retry.py")
    commit_all(repo, "retry.py becomes net_retry.py")
    return guard, gotcha


def genome_state(repo: Path) -> dict[str, str]:
    """The genome's bookkeeping in the repository's index (empty: never built)."""
    with closing(sqlite3.connect(project_location(repo).index_path)) as db:
        try:
            return dict(db.execute("SELECT key, value FROM genome_state"))
        except sqlite3.OperationalError:
            return {}


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def test_the_edit_hook_asks_right_after_a_committed_rename(repo: Path, cli: Run) -> None:
    guard, gotcha = renamed_since_the_index(repo, cli)
    answer = pre_edit(cli, repo, "net_retry.py")
    asks_through_the_rename(answer, guard, gotcha)
    assert genome_state(repo)["head"] == head(repo)  # caught up, for the next hook too


@pytest.mark.parametrize("table", ["usage", "guard_allowed"])
def test_the_plain_fallback_asks_right_after_a_committed_rename(
    repo: Path, cli: Run, table: str
) -> None:
    # the full check fails (before the earlier names are read, or after): the fallback reads
    # them as of HEAD all the same
    guard, _ = renamed_since_the_index(repo, cli)
    assert pre_edit(cli, repo, "README.md") is None  # the guard tables exist from here on
    git(repo, "mv", "net_retry.py", "retry_net.py")
    commit_all(repo, "net_retry.py becomes retry_net.py")
    location = project_location(repo)
    _damage(location.index_path, table)
    answer = pre_edit(cli, repo, "retry_net.py")
    log = (location.base / LOG_NAME).read_text(encoding="utf-8")
    assert "the guard check of retry_net.py failed" in log  # the fallback answered
    assert answer is not None
    assert answer["permissionDecision"] == "ask"
    assert (
        f"[{guard}] covers retry_net.py (renamed from retry.py)"
        in (answer["permissionDecisionReason"])
    )


def test_list_file_lists_the_memories_right_after_a_committed_rename(repo: Path, cli: Run) -> None:
    guard, gotcha = renamed_since_the_index(repo, cli)
    listed = cli("list", "--file", "net_retry.py", "--json")
    assert listed.code == 0, listed.stderr
    assert sorted(m["id"] for m in listed.json()) == sorted([guard, gotcha])


def test_remember_says_the_old_name_was_renamed_right_after_the_commit(
    repo: Path, cli: Run
) -> None:
    renamed_since_the_index(repo, cli)
    done = cli("remember", "x stays", "-c", "gotcha", "-f", "retry.py")
    assert done.code == 0, done.stderr
    assert "'retry.py' was renamed to net_retry.py" in done.stderr


def test_check_follows_a_name_taken_again_since_the_index(tmp_path: Path, cli: Run) -> None:
    # util.py became legacy.py and a new util.py took the name, both committed after the last
    # index: the memory names a file that exists, yet it is about legacy.py
    repo = make_repo(tmp_path / "repo", {"util.py": OLD, "README.md": "# demo\n"})
    before = remember_on_day(cli, 2, "the original util is long")
    git(repo, "add", "-A")
    commit(repo, 3, "commit", "-q", "-m", "memory")
    assert cli("index", env=at(3)).code == 0
    commit(repo, 4, "mv", "util.py", "legacy.py")
    commit(repo, 4, "commit", "-q", "-m", "util.py becomes legacy.py")
    (repo / "util.py").write_text(NEW)
    git(repo, "add", "-A")
    commit(repo, 5, "commit", "-q", "-m", "a new util.py")
    (repo / "legacy.py").write_text(OLD + "# edited\n")
    done = cli("check", "--json")
    found = done.json()
    named = found["review"] + found["failures"]
    assert {(f["id"], f["path"]) for f in named} == {(before, "legacy.py")}
    assert f"[{before}] covers legacy.py (renamed from util.py)" in pre_edit_text(
        cli, repo, "legacy.py"
    )


def test_the_hook_never_builds_a_genome_from_nothing(repo: Path, cli: Run) -> None:
    # never indexed: reading the whole history is recall's and `tether index`'s to do
    remember(cli, "retries stay at three", "decision", "--guard")
    commit_all(repo, "memory")
    assert pre_edit(cli, repo, "retry.py") is not None  # asks, by the file's own name
    assert genome_state(repo) == {}


def test_the_hook_leaves_a_rewritten_history_to_the_next_index(repo: Path, cli: Run) -> None:
    guard, _ = renamed_since_the_index(repo, cli)
    assert pre_edit(cli, repo, "net_retry.py") is not None  # caught up with the rename
    indexed = head(repo)
    git(repo, "commit", "-q", "--amend", "-m", "net_retry.py, renamed")  # the indexed commit
    answer = pre_edit(cli, repo, "README.md")
    assert answer is None
    assert genome_state(repo)["head"] == indexed  # not rebuilt in the hook
    # the renames as last read still guard the file
    answer = pre_edit(cli, repo, "net_retry.py")
    assert answer is not None
    assert f"[{guard}]" in answer["permissionDecisionReason"]
    assert cli("index").code == 0
    assert genome_state(repo)["head"] == head(repo)
