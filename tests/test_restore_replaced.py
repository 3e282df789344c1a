"""Restoring a superseded memory brings it back into recall: the link is removed both ways (the
replacement's ``supersedes`` too, which would keep it out while it is listed as active), and
``tether doctor`` names an active memory that another active memory still says it supersedes
(a store an older version left so)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

from recall.browse.actions import Browser
from recall.browse.view import Entry
from recall.frontmatter import scalar
from recall.locations import project_location
from recall.store import MemoryStore


def _write(repo: Path, *args: str) -> str:
    done = run_tether(*args, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return json.loads(done.stdout)["id"]


def _replaced(repo: Path) -> tuple[str, str]:
    old = _write(repo, "remember", "keep the pool small", "-c", "gotcha", "-f", "src/app.py")
    new = _write(repo, "supersede", old, "keep the pool at four", "-c", "gotcha")
    return old, new


def _recalled(repo: Path) -> set[str]:
    done = run_tether("recall", "-f", "src/app.py", "--no-record", "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return {hit["id"] for hit in json.loads(done.stdout)["results"]}


def test_restore_removes_the_link_both_ways_and_says_so(repo: Path) -> None:
    old, new = _replaced(repo)
    done = run_tether("restore", old, cwd=repo)
    assert done.code == 0, done.stderr
    assert done.stdout.strip() == (
        f"Restored {old}; it is no longer replaced by {new}: both are active"
    )
    memories = repo / ".tether" / "memories"
    assert "superseded_by" not in (memories / f"{old}.md").read_text(encoding="utf-8")
    assert "supersedes" not in (memories / f"{new}.md").read_text(encoding="utf-8")
    assert _recalled(repo) == {old, new}
    assert run_tether("doctor", cwd=repo).stdout.strip() == "No problems found."


def test_restore_json_names_the_replacement(repo: Path) -> None:
    old, new = _replaced(repo)
    done = run_tether("restore", old, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["no_longer_replaced_by"] == [new]


def test_doctor_names_an_active_memory_kept_out_by_a_link(repo: Path) -> None:
    old, new = _replaced(repo)
    # the state an earlier restore left: the old memory active again, the replacement's link kept
    path = repo / ".tether" / "memories" / f"{old}.md"
    text = path.read_text(encoding="utf-8")
    kept = text.replace("status: superseded", "status: active")
    path.write_text(kept.replace(f"superseded_by: {scalar(new)}\n", ""), encoding="utf-8")
    assert _recalled(repo) == {new}
    doctor = run_tether("doctor", "--json", cwd=repo)
    assert doctor.code == 1
    [found] = [entry for entry in json.loads(doctor.stdout) if entry["kind"] == "hidden-by-link"]
    assert (found["id"], found["superseded_by"]) == (old, new)
    assert f"`tether restore {old}` keeps both" in found["message"]
    done = run_tether("restore", old, cwd=repo)
    assert done.code == 0, done.stderr
    assert f"no longer replaced by {new}" in done.stdout
    assert _recalled(repo) == {old, new}
    assert run_tether("doctor", cwd=repo).stdout.strip() == "No problems found."


def test_the_browser_restores_the_same_way(repo: Path) -> None:
    old, new = _replaced(repo)
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        outcome = Browser([store]).restore(Entry(store.get(old), "project"))
        assert (
            outcome.message == f"Restored {old}; it is no longer replaced by {new}: both are active"
        )
        assert store.get(new).supersedes is None
    finally:
        store.close()


def test_restore_keeps_the_link_of_a_replacement_that_is_not_active(repo: Path) -> None:
    first, second = _replaced(repo)
    third = _write(repo, "supersede", second, "keep the pool at eight", "-c", "gotcha")
    memories = repo / ".tether" / "memories"
    done = run_tether("restore", first, cwd=repo)
    assert done.code == 0, done.stderr
    assert done.stdout.strip() == f"Restored {first}"
    assert f"supersedes: {scalar(first)}" in (memories / f"{second}.md").read_text(encoding="utf-8")
    assert _recalled(repo) == {first, third}
    # already active, and its only replacement is not: nothing to do, nothing rewritten
    before = (memories / f"{second}.md").read_text(encoding="utf-8")
    again = run_tether("restore", first, cwd=repo)
    assert again.code != 0
    assert "already active" in again.stdout + again.stderr
    assert (memories / f"{second}.md").read_text(encoding="utf-8") == before


def test_restoring_the_middle_of_a_chain_keeps_the_one_restored_before_it(repo: Path) -> None:
    first, second = _replaced(repo)
    third = _write(repo, "supersede", second, "keep the pool at two", "-c", "gotcha")
    assert run_tether("restore", first, cwd=repo).code == 0
    done = run_tether("restore", second, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["no_longer_replaced_by"], data["no_longer_supersedes"]) == ([third], first)
    assert _recalled(repo) == {first, second, third}
    assert run_tether("doctor", cwd=repo).stdout.strip() == "No problems found."


def test_deleting_a_replacement_says_the_old_memory_stays_out_of_recall(repo: Path) -> None:
    old, new = _replaced(repo)
    done = run_tether("delete", new, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["left_superseded"] == old
    assert (
        f"{old} stays superseded, out of recall: its replacement {new} is deleted now; "
        f"`tether restore {old}` brings {old} back"
    ) in done.stderr
    assert run_tether("restore", old, cwd=repo).code == 0
    assert _recalled(repo) == {old}


def test_superseding_back_to_a_replaced_text_says_to_restore_it(repo: Path) -> None:
    old, new = _replaced(repo)
    done = run_tether("supersede", new, "keep the pool small", "-c", "gotcha", cwd=repo)
    assert done.code == 2, done
    assert f"`tether restore {old}` brings it back (then `tether archive {new}`" in done.stderr


def test_doctor_names_a_hand_written_supersede_across_stores(repo: Path) -> None:
    theirs = _write(repo, "remember", "tabs in makefiles", "-c", "pref", "--global")
    ours = _write(repo, "remember", "spaces in makefiles here", "-c", "pref")
    path = repo / ".tether" / "memories" / f"{ours}.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\n---\n", f"\nsupersedes: {theirs}\n---\n", 1), encoding="utf-8")
    line = path.read_text(encoding="utf-8").splitlines().index(f"supersedes: {theirs}") + 1
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1, done
    assert (
        f"{path}:{line}: {ours} supersedes {theirs}, a memory of the global store; a supersede "
        f"links memories of one store only, so recall keeps both: `tether archive {theirs}` if "
        "this one replaces it, and remove the supersedes line"
    ) in done.stdout
    kinds = [entry["kind"] for entry in json.loads(run_tether("doctor", "--json", cwd=repo).stdout)]
    assert kinds == ["link-across-stores"]
