"""Cleanup over simulated days: the hint's three thresholds crossed and each one short, the
candidates worst first (pinned never), and each decision changing the files as it claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import remember
from genome.gitrepo import GitRepo
from test_cli import fields

from recall.anchors.write import record_anchors
from recall.cli.cmd_cleanup import NEEDS_TERMINAL, PROMPT
from recall.lifecycle import cleanup
from recall.lifecycle.session_start import register
from recall.policy.usage import record_action
from recall.repo_signals import open_repo_signals
from recall.store import MemoryStore

from .conftest import Clock, at, hook_session_start, session_start, surface, tether, usage_row

NOW_DAY = 100


def aged(store: MemoryStore, clock: Clock, *, active: int, stale: int, sessions: int) -> list[str]:
    """A store on day 100 with ``active`` active memories of which ``stale`` are ignored (shown
    four times, never acted on) and the rest recently used, and ``sessions - 1`` past sessions
    (the next session start is the last one). Returns the stale ids."""
    clock.set(0)
    drafts = [
        (
            store.prepare_memory(
                summary=f"memory number {n} about the app", category="gotcha", files=["src/app.py"]
            ),
            None,
        )
        for n in range(active)
    ]
    ids = [result.id for result in store.import_many(drafts)]
    stale_ids, used = ids[:stale], ids[stale:]
    for day in range(1, 5):
        surface(store, stale_ids, day)
    for memory in used:
        record_action(store.conn, memory, when=at(NOW_DAY - 1))
    for n in range(sessions - 1):
        clock.set(10 + n)
        register(store, f"past-{n}", "test")
    clock.set(NOW_DAY)
    store.close()
    return stale_ids


@pytest.mark.parametrize(
    ("sessions", "active", "stale", "due"),
    [
        (20, 30, 10, True),
        (19, 30, 10, False),
        (20, 29, 10, False),
        (20, 30, 9, False),
    ],
    ids=["all-crossed", "sessions-one-short", "active-one-short", "stale-one-short"],
)
def test_the_cleanup_hint_needs_all_three_thresholds(
    store: MemoryStore, clock: Clock, sessions: int, active: int, stale: int, due: bool
) -> None:
    stale_ids = aged(store, clock, active=active, stale=stale, sessions=sessions)
    result = session_start(store, clock, NOW_DAY, "now")
    found = result.cleanup
    assert (found.sessions, found.active, found.due) == (sessions, active, due)
    assert found.stale == (None if sessions < 20 or active < 30 else stale)
    if due:
        assert len(found.worst) == cleanup.HINT_WORST
        assert {c.memory.id for c in found.worst} <= set(stale_ids)


def test_the_hook_gives_the_hint_with_the_worst_offenders(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    stale_ids = aged(store, clock, active=30, stale=10, sessions=20)
    out = json.loads(hook_session_start(repo, "hook-now"))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert text.startswith(
        "tether: memory cleanup due: 20 sessions since the last pass, 30 active memories, 10 stale"
    )
    worst = sorted(stale_ids)[:3]  # equal scores: by id
    assert f"worst: {worst[0]} (ignored), {worst[1]} (ignored), {worst[2]} (ignored)" in text
    assert "`tether cleanup`" in text and "--json" in text


def test_the_thresholds_are_configurable(store: MemoryStore, clock: Clock, repo: Path) -> None:
    aged(store, clock, active=2, stale=1, sessions=1)
    (repo / "pyproject.toml").write_text(
        "[tool.tether]\ncleanup-min-sessions = 1\ncleanup-min-active = 2\ncleanup-min-stale = 1\n"
    )
    started = tether(repo, "session", "start", "--session", "s", "--json").json()
    assert started["cleanup"]["due"] is True
    assert started["cleanup"]["thresholds"] == {"sessions": 1, "active": 2, "stale": 1}


def test_candidates_worst_first_pinned_fresh_and_used_never_listed(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    clock.set(0)
    old_ignored = remember(store, "old and ignored", files=["src/app.py"])
    idle = remember(store, "old and never shown", files=["src/util.py"])
    pinned = remember(store, "pinned, ignored", files=["src/app.py"], pinned=True)
    archived = remember(store, "archived by disuse", files=["README.md"])
    clock.set(300)
    young_ignored = remember(store, "younger and ignored", files=["src/app.py"])
    used = remember(store, "shown a lot, used lately", files=["docs/guide.md"])
    for day in range(301, 306):
        surface(store, [old_ignored, pinned, archived, used], day)
    surface(store, [archived], 306)  # its sixth showing: the only one disuse archives
    for day in range(310, 314):
        surface(store, [young_ignored], day)
    record_action(store.conn, used, when=at(380))
    assert [a.memory_id for a in session_start(store, clock, 390).archived["project"]] == [archived]
    clock.set(391)
    fresh = remember(store, "written yesterday", files=["src/app.py"])
    clock.set(392)

    listing = tether(repo, "cleanup", "--json")
    assert listing.code == 0
    data = listing.json()
    order = [c["id"] for c in data["candidates"]]
    assert order == [old_ignored, idle, young_ignored]
    assert data["total"] == 3 and data["last_pass"] is None
    by_id = {c["id"]: c for c in data["candidates"]}
    assert by_id[old_ignored]["reasons"] == ["ignored"]
    assert by_id[idle]["reasons"] == ["idle"]
    assert by_id[old_ignored]["score"] == round(1 + 5 / 6, 4)  # a year unused, 5 ignored
    assert by_id[idle]["score"] == 1.0
    assert by_id[young_ignored]["score"] == round(92 / 365 + 4 / 6, 4)
    for never in (pinned, archived, used, fresh):
        assert never not in order
    assert tether(repo, "cleanup", "--json", "--limit", "1").json()["candidates"][0]["id"] == (
        old_ignored
    )


def test_dead_reference_and_spot_check_candidates(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    git_repo = GitRepo(repo)
    stamp = {"GIT_AUTHOR_DATE": "2023-12-30T00:00:00+00:00"}
    stamp["GIT_COMMITTER_DATE"] = stamp["GIT_AUTHOR_DATE"]
    git_repo.git("commit", "-q", "--amend", "--no-edit", "--reset-author", env=stamp)
    long_ago = "2023-12-31T00:00:00+00:00"
    gone = remember(store, "About util", files=["src/util.py"], created=long_ago)
    busy = remember(store, "About app", files=["src/app.py"], created=long_ago)
    calm = remember(store, "About the guide", files=["docs/guide.md"], created=long_ago)
    git_repo.remove("src/util.py")
    git_repo.commit("drop util")
    for n in range(20):
        git_repo.commit(f"app change {n}", "src/app.py")
    clock.set(0)

    found = cleanup.candidates(store, open_repo_signals(store, notice=lambda _m: None))
    reasons = {c.memory.id: c.reasons for c in found}
    assert [c.memory.id for c in found] == [gone, busy, calm]
    assert reasons == {
        gone: ("dead reference", "idle"),
        busy: ("spot-check", "idle"),
        calm: ("idle",),
    }
    assert [c.score for c in found] == [2.0, 1.5, 1.0]

    assert tether(repo, "cleanup", "--confirm", busy).code == 0
    assert fields(repo, busy)["confirmed"] == at(0)
    listed = [c["id"] for c in tether(repo, "cleanup", "--json").json()["candidates"]]
    assert listed == [gone, calm]


def test_drift_is_counted_in_a_few_statements_whatever_the_number_of_candidates(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    # A session start judges every memory that may be stale: one count per memory and file
    # took seconds of a language server's start on a store of tens of thousands.
    git_repo = GitRepo(repo)
    stamp = {"GIT_AUTHOR_DATE": "2023-12-30T00:00:00+00:00"}
    stamp["GIT_COMMITTER_DATE"] = stamp["GIT_AUTHOR_DATE"]
    git_repo.git("commit", "-q", "--amend", "--no-edit", "--reset-author", env=stamp)
    long_ago = "2023-12-31T00:00:00+00:00"
    files = ["src/app.py", "docs/guide.md"]
    busy = {remember(store, f"About app {n}", files=files, created=long_ago) for n in range(8)}
    calm = remember(store, "About the guide", files=["docs/guide.md"], created=long_ago)
    for n in range(20):
        git_repo.commit(f"app change {n}", "src/app.py")
    clock.set(0)
    genome = open_repo_signals(store, notice=lambda _m: None)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        found = cleanup.candidates(store, genome)
    finally:
        store.conn.set_trace_callback(None)
    reasons = {c.memory.id: c.reasons for c in found}
    assert {i for i, r in reasons.items() if "spot-check" in r} == busy
    assert reasons[calm] == ("idle",)
    assert len([s for s in statements if "genome_commits" in s]) <= 1


def test_the_drift_batch() -> None:
    # a few statements per 2,000 memories; the pairs of a batch are a few MiB at most
    assert cleanup.DRIFT_BATCH == 2000


def test_each_decision_changes_the_files_as_claimed(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    a, d, c, k = aged(store, clock, active=4, stale=4, sessions=3)
    keep_before = store.path_of(k).read_bytes()
    result = tether(
        repo, "cleanup", "--archive", a, "--delete", d, "--confirm", c, "--keep", k, "--json"
    )
    assert result.code == 0, result.stderr
    data = result.json()
    assert [(e["id"], e["decision"], e["status"]) for e in data["applied"]] == [
        (a, "archive", "archived"),
        (d, "delete", "deleted"),
        (c, "confirm", "active"),
        (k, "keep", "active"),
    ]
    assert fields(repo, a)["status"] == "archived"
    assert fields(repo, d)["status"] == "deleted"
    assert fields(repo, c)["confirmed"] == at(NOW_DAY)
    assert store.path_of(k).read_bytes() == keep_before
    assert (usage_row(store, c)["acted"], usage_row(store, k)["acted"]) == (1, 1)
    assert data["last_pass"] == at(NOW_DAY)
    assert tether(repo, "cleanup", "--json").code == 1  # nothing left to clean

    assert cleanup.sessions_since_pass(store.conn) == 0  # the 20-session count starts again
    assert session_start(store, clock, NOW_DAY + 1, "next").cleanup.sessions == 1


def test_decisions_are_checked_before_any_is_applied(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    first, second = aged(store, clock, active=2, stale=2, sessions=1)
    missing = tether(repo, "cleanup", "--archive", first, "--delete", "abcdef12")
    assert missing.code == 1 and "abcdef12" in missing.stderr
    assert fields(repo, first)["status"] == "active"
    twice = tether(repo, "cleanup", "--archive", first, "--keep", first)
    assert twice.code == 2 and "both --archive and --keep" in twice.stderr
    assert cleanup.last_pass(store.conn) is None
    archived = tether(repo, "cleanup", "--archive", first)
    assert archived.code == 0 and archived.stdout.strip() == f"Archived {first}"
    again = tether(repo, "cleanup", "--archive", first, "--keep", second)
    assert again.code == 0, again.stderr
    assert f"{first} is already archived; left as it is" in again.stdout
    assert usage_row(store, second)["acted"] == 1  # the other decision still went through


def test_a_decision_already_in_effect_is_no_failure(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    first, second = aged(store, clock, active=2, stale=2, sessions=1)
    assert tether(repo, "cleanup", "--delete", first).code == 0
    again = tether(repo, "cleanup", "--delete", first, "--json")
    assert again.code == 0, again.stderr
    [entry] = again.json()["applied"]
    assert (entry["status"], entry["already"]) == ("deleted", True)
    assert again.json()["last_pass"] == at(NOW_DAY)
    said = tether(repo, "cleanup", "--delete", first)
    assert said.code == 0 and said.stdout.strip() == f"{first} is already deleted; left as it is"
    failed = tether(repo, "cleanup", "--archive", first, "--keep", second)
    assert failed.code == 2
    assert f"{first}: could not archive" in failed.stderr
    assert "a decision above failed; do what it says, or run again without that id" in (
        failed.stderr
    )


def test_interactive_one_key_per_memory_from_piped_answers(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    stale_ids = sorted(aged(store, clock, active=3, stale=3, sessions=1))
    result = tether(repo, "cleanup", "--interactive", stdin="a\nx\nk\nq\n")
    assert result.code == 0, result.stderr
    out = result.stdout
    assert out.startswith("3 stale memories, worst first.")
    assert out.count(PROMPT) == 4  # the unknown answer is asked again
    assert "Answer one of a, d, c, k, s, q or the whole word" in out and "got 'x'" in out
    assert "memory number" in out and "shown 4 times, acted on 0 times" in out
    assert f"Archived {stale_ids[0]}" in out and f"Kept {stale_ids[1]}" in out
    assert "archived 1, kept 1." in out
    assert fields(repo, stale_ids[0])["status"] == "archived"
    assert fields(repo, stale_ids[2])["status"] == "active"
    assert cleanup.last_pass(store.conn) == at(NOW_DAY)


def test_an_answer_is_one_key_or_a_whole_word_never_a_first_letter(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    first, second, third = sorted(aged(store, clock, active=3, stale=3, sessions=1))
    answers = ["don't know", "done", " Delete ", "abort", "continue", "ARCHIVE", "keeps"]
    result = tether(repo, "cleanup", "--interactive", stdin="\n".join(answers) + "\n")
    assert result.code == 0, result.stderr
    out = result.stdout
    for wrong in ("don't know", "done", "abort", "continue", "keeps"):
        assert f"got {wrong!r}" in out
    assert "(archive, delete, confirm, keep, skip, quit)" in out  # the re-ask lists the answers
    assert out.count(PROMPT) == len(answers) + 1  # the end of input quits at the last prompt
    assert f"Deleted {first}" in out and f"Archived {second}" in out
    assert "deleted 1, archived 1." in out
    assert fields(repo, first)["status"] == "deleted"
    assert fields(repo, second)["status"] == "archived"
    assert fields(repo, third)["status"] == "active"
    assert usage_row(store, third)["acted"] == 0  # "keeps" kept nothing


def test_without_a_terminal_cleanup_says_what_to_do_instead(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    aged(store, clock, active=1, stale=1, sessions=1)
    refused = tether(repo, "cleanup")
    assert refused.code == 2
    assert NEEDS_TERMINAL in refused.stderr.replace("\n", " ")
    listed = tether(repo, "cleanup", "--json")
    assert listed.code == 0 and listed.json()["total"] == 1
    assert cleanup.last_pass(store.conn) is None  # a listing is not a pass
    assert tether(repo, "cleanup", "--limit", "0").code == 2


def test_keep_brings_a_disuse_archived_memory_back(store: MemoryStore, clock: Clock) -> None:
    memory = remember(store, "ignored for months", files=["src/app.py"])
    for day in range(0, 60, 10):
        surface(store, [memory], day)
    assert session_start(store, clock, 60).archived
    cleanup.apply(store, store.get(memory), "keep")
    row = usage_row(store, memory)
    assert (row["archived_by_disuse"], row["acted"], row["surfaced"]) == (0, 1, 0)


def test_the_review_says_where_each_anchored_symbol_went(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    long_ago = "2023-12-31T00:00:00+00:00"
    draft = store.prepare_memory(
        summary="helper stays pure", category="gotcha", files=["src/util.py"], created=long_ago
    )
    anchors, _ = record_anchors(repo, [("src/util.py", "helper")])
    memory_id = store.remember(draft.with_changes(anchors=anchors)).id
    git_repo = GitRepo(repo)
    git_repo.write("src/util.py", "def other():\n    return 2\n")
    git_repo.write("src/helpers.py", "def helper():\n    return 1\n")
    git_repo.commit("helper moves")
    clock.set(0)
    [found] = cleanup.candidates(store, open_repo_signals(store, notice=lambda _m: None))
    assert found.memory.id == memory_id
    assert found.symbols == ("src/util.py::helper: relocated to src/helpers.py:1-2",)
    listed = tether(repo, "cleanup", "--json").json()["candidates"]
    assert listed[0]["symbols"] == list(found.symbols)
