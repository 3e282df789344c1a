"""`tether repoint` and `tether doctor` follow a rename by the rule recall follows it by: a
memory written before its file's old name was taken again by another file follows the old file;
a file renamed and then deleted is said to be so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import OpenStore, remember
from genome.gitrepo import GitRepo
from test_cli import Cli, assert_error, fields, ok

INITIAL = "2023-12-30T00:00:00+00:00"
LONG_AGO = "2023-12-31T00:00:00+00:00"  # after the initial commit, before every later one


@pytest.fixture
def git_repo(repo: Path) -> GitRepo:
    """The CLI test repository, its commits dated from 2024-01-01 on."""
    driven = GitRepo(repo)
    stamp = {"GIT_AUTHOR_DATE": INITIAL, "GIT_COMMITTER_DATE": INITIAL}
    driven.git("commit", "-q", "--amend", "--no-edit", "--reset-author", env=stamp)
    return driven


def test_a_name_taken_again_after_the_memory_follows_the_rename(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    moved = remember(store, "About app", files=["src/app.py"], created=LONG_AGO)
    git_repo.move("src/app.py", "src/main_app.py")
    git_repo.commit("rename app")
    git_repo.commit("a new app", "src/app.py")
    ok(cli("index"))
    assert "renamed from src/app.py" in ok(cli("recall", "-f", "src/main_app.py")).stdout

    shown = ok(cli("repoint", moved))
    assert "src/app.py -> src/main_app.py" in shown.stdout
    doctor = cli("doctor", "--json")
    assert doctor.code == 1, doctor
    (entry,) = [e for e in doctor.json() if e.get("id") == moved]
    assert entry["kind"] == "renamed"
    assert entry["renamed"] == {"src/app.py": "src/main_app.py"}
    assert f"tether repoint {moved} --apply" in entry["message"]
    ok(cli("repoint", moved, "--apply"))
    assert fields(git_repo.root, moved)["files"] == ["src/main_app.py"]


def test_a_memory_written_after_the_name_was_taken_again_stays(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    git_repo.move("src/app.py", "src/main_app.py")
    git_repo.commit("rename app")
    git_repo.commit("a new app", "src/app.py")
    later = remember(open_store().store, "About the new app", files=["src/app.py"])
    ok(cli("index"))
    assert_error(cli("repoint", later), 1, "no file it names was renamed")
    assert "No problems found" in ok(cli("doctor")).stdout


def _renamed_then_deleted(
    git_repo: GitRepo, open_store: Callable[..., OpenStore], new_name: str
) -> str:
    """A memory on src/util.py, written before git renamed it to ``new_name`` and then
    deleted it: its id."""
    gone = remember(open_store().store, "About util", files=["src/util.py"], created=LONG_AGO)
    git_repo.move("src/util.py", new_name)
    git_repo.commit("rename util")
    git_repo.remove(new_name)
    git_repo.commit("drop util")
    return gone


def test_a_file_renamed_then_deleted_is_said_to_be(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    gone = _renamed_then_deleted(git_repo, open_store, "src/util ü.py")
    result = cli("repoint", gone)
    assert result.code == 1, result
    assert "src/util.py -> src/util ü.py, deleted since" in result.stderr
    assert f"tether archive {gone}" in result.stderr
    assert "was renamed away" not in result.stderr


def test_doctor_says_a_file_renamed_then_deleted_as_repoint_does(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    gone = _renamed_then_deleted(git_repo, open_store, "src/utility.py")
    said = "git shows src/util.py -> src/utility.py, deleted since: no file to repoint it to"
    assert said in cli("repoint", gone).stderr
    doctor = cli("doctor")
    assert doctor.code == 1, doctor
    (line,) = [line for line in doctor.stdout.splitlines() if gone in line]
    assert "every file it names is gone (src/util.py)" in line
    assert said in line and f"`tether archive {gone}`" in line
    (entry,) = [e for e in cli("doctor", "--json").json() if e.get("id") == gone]
    assert entry["kind"] == "dead-reference"
    assert entry["renamed_then_deleted"] == {"src/util.py": "src/utility.py"}
    assert said in entry["message"]


def test_show_says_what_became_of_each_file_no_longer_there(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    memory = remember(
        store,
        "About three files",
        files=["src/app.py", "src/util.py", "docs/guide.md"],
        created=LONG_AGO,
    )
    git_repo.move("src/app.py", "src/main_app.py")
    git_repo.commit("rename app")
    git_repo.move("src/util.py", "src/utility.py")
    git_repo.commit("rename util")
    git_repo.remove("src/utility.py")
    git_repo.commit("drop util")
    lines = ok(cli("show", memory)).stdout.splitlines()
    assert "file src/app.py: renamed to src/main_app.py" in lines
    assert "file src/util.py: git shows src/util.py -> src/utility.py, deleted since" in lines
    assert not any(line.startswith("file docs/guide.md") for line in lines)  # still there
    assert f"`tether repoint {memory} --apply` writes the new names into its file" in lines
    shown = ok(cli("show", memory, "--json")).json()
    assert shown["files_now"] == {
        "src/app.py": "renamed to src/main_app.py",
        "src/util.py": "git shows src/util.py -> src/utility.py, deleted since",
    }


def test_a_name_taken_again_after_a_rename_and_delete_is_not_the_memorys_file(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    """Recall follows the memory to the file that left the name and was deleted since;
    ``doctor``, ``show`` and ``repoint`` say so, and a memory written after the name came back
    is about the new file."""
    gone = _renamed_then_deleted(git_repo, open_store, "src/utility.py")
    git_repo.commit("a new, unrelated util", "src/util.py")
    later = remember(open_store().store, "About the new util", files=["src/util.py"])
    ok(cli("index"))
    assert "renamed from src/util.py" in ok(cli("recall", "-f", "src/utility.py")).stdout
    said = "git shows src/util.py -> src/utility.py, deleted since"
    assert f"{said}: no file to repoint it to" in cli("repoint", gone).stderr
    doctor = cli("doctor", "--json")
    assert doctor.code == 1, doctor
    (entry,) = [e for e in doctor.json() if e.get("id") == gone]
    assert entry["kind"] == "dead-reference"
    assert entry["renamed_then_deleted"] == {"src/util.py": "src/utility.py"}
    assert not [e for e in doctor.json() if e.get("id") == later]
    assert f"file src/util.py: {said}" in ok(cli("show", gone)).stdout.splitlines()
    assert "file src/util.py" not in ok(cli("show", later)).stdout
    assert_error(cli("repoint", later), 1, "no file it names was renamed")
