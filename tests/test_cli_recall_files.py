"""``tether recall --file`` with the files a person names: one deleted from the working tree
(or missing on this branch) still recalls the memories naming it, as ``tether list --file``
lists them, with a note; a link inside the repository stands for its target, as an edit
through it does in the hooks; a path leading outside the repository is refused."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git

from tests.mcp.harness import call, mcp_client

Cli = Callable[..., CliResult]

NOT_IN_TREE = "src/util.py is not in the working tree (deleted, or not on this branch)"


def _remember(cli: Cli, summary: str, path: str) -> str:
    done = cli("remember", summary, "-c", "gotcha", "-f", path, "--json")
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


@pytest.mark.parametrize("how", ["deleted", "committed on a branch"])
def test_recall_of_a_file_missing_from_the_working_tree_finds_its_memories(
    cli: Cli, repo: Path, how: str
) -> None:
    memory_id = _remember(cli, "the helper caches forever", "src/util.py")
    _remember(cli, "the app starts slowly", "src/app.py")
    if how != "deleted":  # a branch without the file
        git(repo, "switch", "-q", "-c", "without-util")
    (repo / "src" / "util.py").unlink()
    if how != "deleted":
        git(repo, "commit", "-qam", "drop util")
    listed = cli("list", "--file", "src/util.py", "--json")
    assert [m["id"] for m in listed.json()] == [memory_id]

    done = cli("recall", "-f", "src/util.py", "--json")

    assert done.code == 0, done.stderr
    assert [hit["id"] for hit in done.json()["results"]] == [memory_id]
    assert done.json()["results"][0]["receipt"].startswith("via file")
    assert NOT_IN_TREE in done.stderr and "error" not in done.stderr
    assert "not a file of this repository" not in done.stderr
    typo = cli("recall", "-f", "src/ap.py")  # a missing file no memory names: a typo, said
    assert typo.code == 1
    assert "src/ap.py is not a file of this repository; did you mean src/app.py?" in typo.stderr
    outside = repo.parent / "elsewhere.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    refused = cli("recall", "-f", str(outside))
    assert refused.code == 2 and refused.stdout == ""
    assert f"--file {str(outside)!r} resolves outside the repository" in refused.stderr


def _at(monkeypatch: pytest.MonkeyPatch, day: int) -> None:
    """Date the commits and the memories that follow at 10:00 on ``day`` November 2026."""
    moment = f"2026-11-{day:02d}T10:00:00+00:00"
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "TETHER_NOW"):
        monkeypatch.setenv(key, moment)


def _renamed_then_deleted(cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A memory on src/util.py (day 2), the file renamed to src/helper.py (day 3) and that
    deleted (day 4), all committed and indexed: the memory's id."""
    _at(monkeypatch, 2)
    memory_id = _remember(cli, "util must keep x an int", "src/util.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a memory")
    _at(monkeypatch, 3)
    git(repo, "mv", "src/util.py", "src/helper.py")
    git(repo, "commit", "-qm", "rename")
    _at(monkeypatch, 4)
    git(repo, "rm", "-q", "src/helper.py")
    git(repo, "commit", "-qm", "delete")
    _at(monkeypatch, 5)
    assert cli("index").code == 0
    return memory_id


def test_recall_of_a_file_renamed_and_then_deleted_finds_its_memories_by_either_name(
    cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory on a file that was renamed, a day later, and deleted the day after: recall
    finds it by the name it gives (as ``list --file`` lists it) and by the name the file had
    last, and says of each that it is missing from the working tree, as ``neighbours`` does:
    both names are in the history, so neither is called no file of the repository."""
    memory_id = _renamed_then_deleted(cli, repo, monkeypatch)

    for name, receipt in (
        ("src/util.py", "via file"),
        ("src/helper.py", "via file (renamed from src/util.py)"),
    ):
        done = cli("recall", "-f", name, "--json")
        assert done.code == 0, done.stderr
        assert [hit["id"] for hit in done.json()["results"]] == [memory_id], name
        assert done.json()["results"][0]["receipt"] == receipt
        said = f"{name} is not in the working tree (deleted, or not on this branch); recalling"
        assert said in done.stderr
        assert "not a file of this repository" not in done.stderr
    listed = cli("list", "--file", "src/util.py", "--json")
    assert [m["id"] for m in listed.json()] == [memory_id]
    neighbours = cli("--json", "neighbours", "src/util.py")
    assert neighbours.code == 1
    assert neighbours.json()["notes"] == [NOT_IN_TREE]


def test_list_of_a_file_renamed_and_then_deleted_lists_its_memories_by_either_name(
    cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``list --file`` follows the rename as recall does: by the name the file had last, the
    memory written on its earlier name is listed; a name the file never had lists nothing."""
    memory_id = _renamed_then_deleted(cli, repo, monkeypatch)

    for name in ("src/util.py", "src/helper.py"):
        listed = cli("list", "--file", name, "--json")
        assert listed.code == 0, listed.stderr
        assert [m["id"] for m in listed.json()] == [memory_id], name
    other = cli("list", "--file", "src/app.py", "--json")
    assert other.code == 1 and other.json() == []


@pytest.mark.asyncio
async def test_memory_list_of_a_file_renamed_and_then_deleted_lists_its_memories(
    cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = _renamed_then_deleted(cli, repo, monkeypatch)
    async with mcp_client(repo) as client:
        listed = await call(client, "memory_list", file="src/helper.py")
    assert [m["id"] for m in listed["memories"]] == [memory_id]


def test_recall_through_a_link_in_the_repository_recalls_its_target(cli: Cli, repo: Path) -> None:
    """A link to another file of the repository recalls the target's memories; one leading
    outside the repository is not followed there: refused, naming it."""
    memory_id = _remember(cli, "the app starts slowly", "src/app.py")
    _remember(cli, "the helper caches forever", "src/util.py")
    os.symlink("app.py", repo / "src" / "alias.py")

    done = cli("recall", "--file", "src/alias.py", "--json")

    assert done.code == 0, done.stderr
    assert [hit["id"] for hit in done.json()["results"]] == [memory_id]
    assert "not a file" not in done.stderr
    outside = repo.parent / "outside"
    outside.mkdir()
    (outside / "app.py").write_text("y = 2\n", encoding="utf-8")
    os.symlink(outside / "app.py", repo / "src" / "away.py")

    away = cli("recall", "--file", "src/away.py")
    assert away.code == 2 and away.stdout == ""
    assert "--file 'src/away.py' leads through a symlink to" in away.stderr
    assert "outside the repository" in away.stderr


def test_a_missing_file_asked_for_counts_as_present_only_within_its_recall(
    open_store: Callable[..., Any], repo: Path
) -> None:
    """The engine takes a named missing file as present for that recall only: its own view of
    the working tree is back after it, also when the recall fails (an engine may be kept)."""
    from recall.ranking.asked_present import asked_present
    from recall.service import build_recaller

    store = open_store().store
    recaller = build_recaller([store], store, notice=lambda message: None)
    own = recaller.repo
    assert not own.exists("src/gone.py")
    with asked_present(recaller, ["src/gone.py"]):
        assert recaller.repo.exists("src/gone.py")
    assert recaller.repo is own
    with pytest.raises(RuntimeError), asked_present(recaller, ["src/gone.py"]):
        raise RuntimeError("the recall failed")
    assert recaller.repo is own and not recaller.repo.exists("src/gone.py")


def test_a_second_file_after_one_file_option_is_refused_not_read_as_the_prompt(
    cli: Cli, repo: Path
) -> None:
    """``-f`` takes one path: in ``-f a.py b.py`` the second would be the prompt, and recall
    would answer for one file while the person asked for two."""
    _remember(cli, "the helper caches forever", "src/util.py")
    done = cli("recall", "-f", "src/util.py", "src/app.py", "--json")
    assert done.code == 2 and done.stdout == ""
    assert "the prompt 'src/app.py' is a file here" in done.stderr
    assert "--file src/app.py" in done.stderr
    both = cli("recall", "-f", "src/util.py", "-f", "src/app.py", "--json")
    assert both.code == 0, both.stderr
    sentence = cli("recall", "why is src/app.py slow", "-f", "src/util.py", "--json")
    assert sentence.code == 0 and sentence.json()["query"] == "why is src/app.py slow"
