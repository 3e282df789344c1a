"""``tether pin`` and ``tether guard`` on a memory out of recall: a deleted or superseded one
is refused, naming ``tether restore``; one a person archived is pinned with a note that it
stays out of recall until restored (as ``confirm`` vouches for it without restoring it)."""

from __future__ import annotations

import pytest
from test_cli import Cli, add, fields, ok


@pytest.mark.parametrize("verb", ["pin", "guard"])
def test_a_deleted_memory_is_not_pinned_or_guarded(cli: Cli, repo, verb: str) -> None:
    memory = add(cli, "Old pool note", "-f", "src/app.py")
    ok(cli("delete", memory))
    result = cli(verb, memory)
    assert result.code == 2, result
    assert f"{memory} is deleted" in result.stderr
    assert f"`tether restore {memory}`" in result.stderr
    assert result.stdout == ""
    assert not fields(repo, memory).get("pinned") and not fields(repo, memory).get("guard")


@pytest.mark.parametrize("verb", ["pin", "guard"])
def test_a_superseded_memory_is_not_pinned_or_guarded(cli: Cli, repo, verb: str) -> None:
    old = add(cli, "Pool size is 4", "-f", "src/app.py")
    new = ok(cli("supersede", old, "Pool size is 8", "--json")).json()["id"]
    result = cli(verb, old)
    assert result.code == 2, result
    assert f"{old} is superseded by {new}" in result.stderr
    assert f"`tether restore {old}`" in result.stderr
    assert not fields(repo, old).get("pinned") and not fields(repo, old).get("guard")


@pytest.mark.parametrize(("verb", "key"), [("pin", "pinned"), ("guard", "guard")])
def test_an_archived_memory_is_pinned_with_a_note_that_it_stays_out_of_recall(
    cli: Cli, repo, verb: str, key: str
) -> None:
    memory = add(cli, "Archived pool note", "-f", "src/app.py")
    ok(cli("archive", memory))
    result = ok(cli(verb, memory))
    assert fields(repo, memory)[key] is True
    assert fields(repo, memory)["status"] == "archived"
    assert result.stderr.strip() == (
        f"tether: {memory} is {key if key == 'pinned' else 'guarded'}, but it is archived, so it "
        f"stays out of recall until restored (`tether restore {memory}`)"
    )
    again = cli(verb, memory)  # already so: nothing done, and nothing said as if it were
    assert again.code == 1 and "but it is archived" not in again.stderr, again


def test_unpin_and_unguard_still_work_on_a_deleted_memory(cli: Cli, repo) -> None:
    memory = add(cli, "Guarded pool note", "-c", "decision", "-f", "src/app.py", "--pin")
    ok(cli("guard", memory))
    ok(cli("delete", memory))
    ok(cli("unpin", memory))
    ok(cli("unguard", memory))
    assert not fields(repo, memory).get("pinned") and not fields(repo, memory).get("guard")
