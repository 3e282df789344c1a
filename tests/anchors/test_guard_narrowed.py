"""A person's supersede may narrow the guard it carries (new anchors leave a guarded file out,
or cover less of its code), and is told what is no longer guarded: never silently."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git

from recall import frontmatter


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
