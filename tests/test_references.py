"""Dead and drifting references against real temp git repositories: `git rm`, `git mv`, and
20+ commits, through `tether doctor`, `tether repoint`, `tether confirm` and `tether show`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import OpenStore, remember
from genome.gitrepo import GitRepo
from test_cli import Cli, assert_error, fields, ok

from recall.lifecycle.dead import dead_reference, repointed
from recall.lifecycle.references import drift, with_lifecycle_keys
from recall.model import Memory
from recall.ranking.weights import DRIFT_COMMITS
from recall.repo_signals import open_repo_signals

# The repository's initial commit is re-dated to INITIAL; memories are written at LONG_AGO,
# after it and before every commit GitRepo makes (its dates start 2024-01-01).
INITIAL = "2023-12-30T00:00:00+00:00"
LONG_AGO = "2023-12-31T00:00:00+00:00"


@pytest.fixture
def git_repo(repo: Path) -> GitRepo:
    """The CLI test repository, driven through GitRepo (fixed commit dates from 2024-01-01)."""
    driven = GitRepo(repo)
    stamp = {"GIT_AUTHOR_DATE": INITIAL, "GIT_COMMITTER_DATE": INITIAL}
    driven.git("commit", "-q", "--amend", "--no-edit", "--reset-author", env=stamp)
    return driven


def _genome(store):
    return open_repo_signals(store, notice=lambda _: None)


def _load(store, memory_id: str) -> Memory:
    return with_lifecycle_keys(store, store.get(memory_id))


def test_dead_reference_after_git_rm_and_rename_after_git_mv(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    gone = remember(store, "About util", files=["src/util.py"])
    moved = remember(store, "About app", files=["src/app.py"])
    half = remember(store, "About both", files=["src/util.py", "docs/guide.md"])
    alive = remember(store, "About readme", files=["README.md"])
    no_files = remember(store, "General", files=[])
    git_repo.remove("src/util.py")
    git_repo.move("src/app.py", "src/main_app.py")
    git_repo.commit("rm util, rename app")

    genome = _genome(store)
    dead = {m.id: dead_reference(m, genome) for m in store.list()}
    assert dead[gone] is not None and dead[gone].renamed == {"src/util.py": None}
    assert dead[moved] is not None and dead[moved].renamed == {"src/app.py": "src/main_app.py"}
    assert dead[moved].proposed == ["src/main_app.py"]
    assert dead[half] is None and dead[alive] is None and dead[no_files] is None

    result = cli("doctor")
    assert result.code == 1, result
    assert f"{gone}: every file it names is gone (src/util.py)" in result.stdout
    assert "src/app.py -> src/main_app.py" in result.stdout
    assert f"tether repoint {moved} --apply" in result.stdout
    assert half not in result.stdout and alive not in result.stdout
    data = cli("doctor", "--json").json()
    by_id = {entry["id"]: entry for entry in data if entry.get("kind") == "dead-reference"}
    assert set(by_id) == {gone, moved}
    assert by_id[moved]["renamed"] == {"src/app.py": "src/main_app.py"}
    assert fields(git_repo.root, moved)["files"] == ["src/app.py"]  # doctor never rewrites


def test_repoint_proposes_then_applies_and_keeps_the_old_path(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    moved = remember(store, "About app", files=["src/app.py", "src/util.py"])
    git_repo.move("src/app.py", "src/core/app.py")
    git_repo.remove("src/util.py")
    git_repo.commit("move app")

    shown = ok(cli("repoint", moved))
    assert "src/app.py -> src/core/app.py" in shown.stdout and "--apply" in shown.stdout
    assert fields(git_repo.root, moved)["files"] == ["src/app.py", "src/util.py"]
    proposal = ok(cli("repoint", moved, "--json")).json()
    assert proposal["proposed"] == ["src/core/app.py", "src/util.py"]
    assert proposal["applied"] is False

    applied = ok(cli("repoint", moved, "--apply", "--json")).json()
    assert applied["applied"] is True
    written = fields(git_repo.root, moved)
    assert written["files"] == ["src/core/app.py", "src/util.py"]
    assert written["former_files"] == ["src/app.py"]
    card = ok(cli("show", moved, "--json")).json()
    assert card["files"] == ["src/core/app.py", "src/util.py"]
    assert card["former_files"] == ["src/app.py"]
    assert "formerly: src/app.py" in ok(cli("show", moved)).stdout
    assert card["usage"]["acted"] >= 1
    # Nothing left to repoint: exit 1, and the file is not touched again.
    assert_error(cli("repoint", moved, "--apply"), 1, "no file it names was renamed")
    assert fields(git_repo.root, moved)["former_files"] == ["src/app.py"]
    # A second move adds to the record instead of replacing it.
    git_repo.move("src/core/app.py", "src/application.py")
    git_repo.commit("move app again")
    ok(cli("repoint", moved, "--apply"))
    written = fields(git_repo.root, moved)
    assert written["files"] == ["src/application.py", "src/util.py"]
    assert written["former_files"] == ["src/app.py", "src/core/app.py"]


def test_repoint_unknown_id_and_untouched_memory(cli: Cli, open_store) -> None:
    memory_id = remember(open_store().store, "About readme", files=["README.md"])
    assert_error(cli("repoint", "0000ffff"), 1, "0000ffff")
    assert_error(cli("repoint", memory_id), 1, "no file it names was renamed")


def test_repointed_merges_former_files() -> None:
    memory = Memory(
        id="0000abcd",
        category="gotcha",
        summary="S",
        files=("b.py", "c.py"),
        extra={"former_files": ["a.py"]},
    )
    assert repointed(memory, {"b.py": "B.py"}) == (["B.py", "c.py"], ["a.py", "b.py"])


def _churn(git_repo: GitRepo, path: str, times: int) -> None:
    for n in range(times):
        git_repo.commit(f"churn {n}", path)


def test_drift_after_20_commits_flagged_in_show_and_doctor_then_confirm_clears_it(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    busy = remember(store, "About app", files=["src/app.py"], created=LONG_AGO)
    calm = remember(store, "About util", files=["src/util.py"], created=LONG_AGO)
    _churn(git_repo, "src/app.py", DRIFT_COMMITS - 1)
    git_repo.commit("touch util once", "src/util.py")

    genome = _genome(store)
    assert drift(_load(store, busy), genome) is None  # 19 commits: not yet
    assert ok(cli("doctor")).stdout.strip() == "No problems found."

    git_repo.commit("one more", "src/app.py")
    genome = _genome(store)
    found = drift(_load(store, busy), genome)
    assert found is not None and found.commits == DRIFT_COMMITS and found.since == LONG_AGO
    assert drift(_load(store, calm), genome) is None
    assert drift(_load(store, calm), genome, threshold=1) is not None

    card = ok(cli("show", busy))
    assert "spot-check" in card.stdout and f"tether confirm {busy}" in card.stdout
    assert ok(cli("show", busy, "--json")).json()["spot_check"]["commits"] == DRIFT_COMMITS
    assert ok(cli("show", calm, "--json")).json()["spot_check"] is None
    recalled = ok(cli("recall", "--file", "src/app.py", "--file", "src/util.py", "--json"))
    marks = {r["id"]: (r["spot_check"], r["receipt"]) for r in recalled.json()["results"]}
    assert marks[busy][0] == DRIFT_COMMITS and "spot-check" in marks[busy][1]
    assert marks[calm] == (None, marks[calm][1]) and "spot-check" not in marks[calm][1]
    doctor = cli("doctor", "--json")
    assert doctor.code == 1
    assert [(e["kind"], e["id"]) for e in doctor.json()] == [("drift", busy)]

    confirmed = ok(cli("confirm", busy, "--json")).json()
    assert fields(git_repo.root, busy)["confirmed"] == confirmed["confirmed"]
    assert ok(cli("show", busy, "--json")).json()["spot_check"] is None
    assert ok(cli("doctor")).stdout.strip() == "No problems found."
    again = ok(cli("recall", "--file", "src/app.py", "--json", "--no-record")).json()["results"]
    assert again[0]["spot_check"] is None and "spot-check" not in again[0]["receipt"]


def test_drift_counts_from_the_confirmed_time(
    cli: Cli, git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    memory_id = remember(store, "About app", files=["src/app.py"], created=LONG_AGO)
    _churn(git_repo, "src/app.py", DRIFT_COMMITS + 2)
    # Confirmed just after the tenth commit (GitRepo commits are one hour apart).
    store.update_fields(memory_id, {"confirmed": git_repo.date(10)[:19] + "+00:00"})
    genome = _genome(store)
    assert drift(_load(store, memory_id), genome) is None
    found = drift(_load(store, memory_id), genome, threshold=5)
    assert found is not None and found.commits == DRIFT_COMMITS + 2 - 10


def test_drift_ignores_an_unreadable_baseline(
    git_repo: GitRepo, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    memory_id = remember(store, "About app", files=["src/app.py"], created=LONG_AGO)
    _churn(git_repo, "src/app.py", DRIFT_COMMITS)
    store.update_fields(memory_id, {"confirmed": "last tuesday"})
    assert drift(_load(store, memory_id), _genome(store)) is None
