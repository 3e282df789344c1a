"""A person's supersede may narrow the guard it carries (new anchors leave a guarded file out,
or cover less of its code), and is told what is no longer guarded: never silently."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import CliResult, OpenStore, git, remember_guarded

from recall import frontmatter
from recall.anchors.guards import Replacement, narrowed_now
from tests.ranking.test_recall_cost import traced


def test_new_anchors_that_leave_a_guarded_file_out_are_said(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    (repo / "src" / "loader.py").write_text("def load():\n    return 2\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a loader")
    done = cli(
        "remember", "helper must return one", "-c", "decision", "--guard",
        "--anchor", "src/util.py::helper", "--json",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    old = done.json()["id"]
    replaced = cli(
        "supersede", old, "load must return two", "--anchor", "src/loader.py::load", "--json"
    )
    assert replaced.code == 0, replaced.stderr
    path = repo / ".tether" / "memories" / f"{replaced.json()['id']}.md"
    fields = frontmatter.parse(path.read_text(encoding="utf-8"), path).fields
    assert (fields["files"], fields["guard"]) == (["src/loader.py"], True)
    assert (
        f"the guard of {old} is carried, but narrowed: src/util.py is no longer guarded"
        in replaced.stderr
    )
    # covering as much keeps it without a word
    again = cli("supersede", replaced.json()["id"], "load must return two, always")
    assert again.code == 0, again.stderr
    assert "narrowed" not in again.stderr


def test_a_guarded_file_renamed_since_is_named_as_it_is_now(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """The file a narrowed guard leaves out is named as it is called now, with the name the
    memory gives it; naming it by its new name leaves the guard as wide as it was."""
    done = cli("remember", "util stays pure", "-c", "decision", "-f", "src/util.py", "--guard")
    assert done.code == 0, done.stderr
    old = done.stdout.split()[1]
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-q", "-m", "util becomes helpers")
    moved = cli("supersede", old, "app stays pure", "-f", "src/app.py", "--json")
    assert moved.code == 0, moved.stderr
    assert (
        f"the guard of {old} is carried, but narrowed: src/helpers.py (src/util.py in the "
        "memory) is no longer guarded" in moved.stderr
    )
    assert cli("restore", old).code == 0
    kept = cli("supersede", old, "helpers stay pure", "-f", "src/helpers.py")
    assert kept.code == 0, kept.stderr
    assert "narrowed" not in kept.stderr


@pytest.mark.parametrize("refresh", [True, False], ids=["cli", "editor"])
def test_a_narrowing_weighed_through_renames_and_moves_opens_the_repository_once(
    repo: Path,
    cli: Callable[..., CliResult],
    open_store: Callable[..., OpenStore],
    refresh: bool,
) -> None:
    """A guarded symbol whose definition moved to another file (its own file deleted, not
    renamed) is weighed first through the renames git shows, then through where the
    definition is now, on one opening of the repository's signals: what the first step read
    of the file's history (through SQLite's own trace hook) is not read again for the second.
    The genome is as ``tether index`` keeps it, brought up to date or not (as the editor
    weighs it)."""
    old_id = remember_guarded(repo, "helper must return one", "--anchor", "src/util.py::helper")
    (repo / "src" / "app.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    git(repo, "rm", "-q", "src/util.py")
    git(repo, "commit", "-q", "-am", "helper moves to app")
    assert cli("index").code == 0
    store, notices = open_store()
    old = store.get(old_id)
    there = replace(old.anchors[0], path="src/app.py")
    weighed = Replacement(store, old, ["src/app.py"], [there], notice=notices, refresh=refresh)
    with traced(store.conn) as seen:
        left = narrowed_now(weighed)
    assert left == ([], [])  # the guard covers helper where it is now
    history = [s for s in seen if "FROM genome_renames WHERE old = 'src/util.py'" in s]
    assert len(history) == 1, history
