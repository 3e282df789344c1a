"""Distill against a real git repository and a real store: what is written, capped, deduped.

Every commit is made with git in a temp repository; every check reads the memory files.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import git

from recall.distill import (
    DISTILLED_FROM_KEY,
    auto_distill,
    distill,
    latest_session,
    read_commits,
    session_commits,
)
from recall.distill_words import MAX_PER_SESSION, SWEEP_FILES
from recall.errors import BadInput, NotFound
from recall.policy.sessions import count_turn
from recall.settings import EngineSettings

from .conftest import History

GOTCHAS = [
    "Never call flush() from the signal handler",
    "Don't cache tokens across tenants",
    "Always close the upload handle",
    "Workaround: the proxy strips the auth header",
    "Must not reorder the migrations",
]


def run(history: History, since: str, **kwargs: object):
    """Distill the commits after ``since`` with the default settings (overridable)."""
    options = {"categories": ("gotcha", "decision"), "limit": MAX_PER_SESSION, **kwargs}
    return distill(history.store, read_commits(history.root, since_commit=since), **options)


def test_writes_pending_memories_tied_to_the_changed_files(history: History) -> None:
    start = history.head()
    sha = history.commit(
        "fix: retry the upload\n\nNever lower the retry count below two.", "src/util.py"
    )
    history.commit("Bump version", "README.md")
    report = run(history, start)
    (written,) = report.written
    fields = history.fields(written.id)
    assert fields["status"] == "pending"
    assert fields["source"] == "auto-distilled"
    assert fields["category"] == "gotcha"
    assert fields["files"] == ["src/util.py"]
    assert fields[DISTILLED_FROM_KEY] == sha
    assert fields["author"] == "Test Author"
    memory = history.store.get(written.id)
    assert memory.summary == "Retry the upload"
    assert memory.details.strip() == "Never lower the retry count below two."
    assert not memory.is_recallable
    skipped = [o for o in report.outcomes if o.action == "skipped"]
    assert [o.reason for o in skipped] == ["no durable knowledge found in its message"]


def test_a_fixup_commit_is_skipped_as_a_fixup_commit(history: History) -> None:
    start = history.head()
    history.commit("Never lower the retry count below two", "src/util.py")
    sha = history.commit("fixup! Never lower the retry count below two", "src/util.py")
    report = run(history, start)
    skipped = [o for o in report.outcomes if o.action == "skipped"]
    fixup = "a fixup! commit, to be folded into the commit it fixes: no knowledge of its own"
    assert [(o.commit, o.reason) for o in skipped] == [(sha[:10], fixup)]


def test_history_is_what_git_marks_it_not_a_subject_word(history: History) -> None:
    start = history.head()
    merge_sort = history.commit("Merge sort must be stable: never swap equal keys", "src/util.py")
    polling = history.commit("Revert to polling: never hold the socket across a fork")
    git(history.root, "revert", "--no-edit", polling)
    reverted = history.head()
    commits = read_commits(history.root, since_commit=start)
    assert commits[0].parents == (start,)
    report = run(history, start)
    written = {o.commit for o in report.outcomes if o.action == "written"}
    assert written == {merge_sort[:10], polling[:10]}
    skipped = [(o.commit, o.reason) for o in report.outcomes if o.action == "skipped"]
    revert = "a revert commit, restating the commit it undoes: no knowledge of its own"
    assert skipped == [(reverted[:10], revert)]


def test_at_most_three_per_session_and_the_rest_reported(history: History) -> None:
    start = history.head()
    shas = [history.commit(message) for message in GOTCHAS]
    report = run(history, start)
    assert [o.summary for o in report.written] == GOTCHAS[:MAX_PER_SESSION]
    over = [o for o in report.outcomes if "cap" in o.reason]
    assert [o.commit for o in over] == [s[:10] for s in shas[MAX_PER_SESSION:]]
    assert all(
        o.reason
        == f"over the cap of {MAX_PER_SESSION} memories per session (the distill_max setting)"
        for o in over
    )
    assert len(history.memory_files()) == MAX_PER_SESSION


def test_nothing_is_asked_of_the_command_once_the_cap_is_reached(
    history: History, tmp_path: Path
) -> None:
    calls = tmp_path / "calls.txt"
    script = tmp_path / "count.py"
    script.write_text(
        "import json, sys\n"
        "commit = json.load(sys.stdin)\n"
        f"with open({str(calls)!r}, 'a') as out:\n"
        "    out.write(commit['commit'] + '\\n')\n"
        "subject = commit['message'].splitlines()[0]\n"
        "print(json.dumps([{'category': 'gotcha', 'summary': 'Cmd: ' + subject}]))\n",
        encoding="utf-8",
    )
    start = history.head()
    shas = [history.commit(message) for message in GOTCHAS]
    report = run(history, start, limit=2, command=(sys.executable, str(script)))
    assert [o.summary for o in report.written] == [f"Cmd: {m}" for m in GOTCHAS[:2]]
    assert calls.read_text().split() == shas[:2]  # never called for the three over the cap
    over = [o for o in report.outcomes if o.action == "skipped"]
    assert [o.commit for o in over] == [s[:10] for s in shas[2:]]
    assert all(
        o.reason == "over the cap of 2 memories per session (the distill_max setting)" for o in over
    )


def test_the_cap_holds_across_runs_over_one_session(history: History) -> None:
    start = history.head()
    for message in GOTCHAS[:2]:
        history.commit(message)
    assert len(run(history, start).written) == 2
    for message in GOTCHAS[2:]:
        history.commit(message)
    again = run(history, start)
    assert [o.summary for o in again.written] == [GOTCHAS[2]]
    assert len(history.memory_files()) == MAX_PER_SESSION


def test_running_twice_writes_nothing_new(history: History) -> None:
    start = history.head()
    history.commit(GOTCHAS[0])
    history.commit("Pick zstd because it decodes faster", "src/util.py")
    first = run(history, start)
    files = history.memory_files()
    assert len(first.written) == 2
    second = run(history, start)
    assert second.written == []
    assert history.memory_files() == files
    assert all(o.reason.startswith("already distilled into") for o in second.outcomes)


def test_same_knowledge_from_two_commits_is_written_once(history: History) -> None:
    start = history.head()
    history.commit(GOTCHAS[0], "src/app.py")
    history.commit(GOTCHAS[0], "src/app.py")  # the same message, the same file
    report = run(history, start)
    (written,) = report.written
    (dup,) = [o for o in report.outcomes if o.action == "skipped"]
    assert dup.reason == f"already known as {written.id} (pending)"


def test_knowledge_a_person_already_wrote_is_not_proposed(history: History) -> None:
    start = history.head()
    history.commit(GOTCHAS[0], "src/app.py")
    draft = history.store.prepare_memory(
        summary=GOTCHAS[0], category="gotcha", files=["src/app.py"]
    )
    mine = history.store.remember(draft).id
    report = run(history, start)
    assert report.written == []
    assert report.outcomes[0].reason == f"already known as {mine} (active)"


def test_allow_list_decides_the_categories(history: History) -> None:
    start = history.head()
    history.commit("Prefer dataclasses over dicts in the parser")
    history.commit("Pick zstd because it decodes faster", "src/util.py")
    report = run(history, start, categories=("gotcha",))
    assert report.written == []
    reasons = sorted(o.reason for o in report.outcomes)
    assert reasons == ["category decision is not allowed", "category pref is not allowed"]
    widened = run(history, start, categories=("pref", "decision"))
    assert sorted(o.category for o in widened.written) == ["decision", "pref"]


def test_dry_run_writes_nothing(history: History) -> None:
    start = history.head()
    history.commit(GOTCHAS[0])
    report = run(history, start, dry_run=True)
    assert [o.action for o in report.written] == ["would-write"]
    assert history.store.list(status="all") == []


def test_sweeping_commits_and_vanished_files_are_passed_over(history: History) -> None:
    start = history.head()
    many = [f"gen/file{i}.py" for i in range(SWEEP_FILES + 1)]
    history.commit("Never edit generated files by hand", *many)
    history.commit("Never import the old shim", "src/shim.py")
    git(history.root, "rm", "-q", "src/shim.py")
    history.commit("Remove the shim", "README.md")
    report = run(history, start)
    assert report.written == []
    reasons = [o.reason for o in report.outcomes]
    assert reasons[0] == f"changes {SWEEP_FILES + 1} files (over {SWEEP_FILES})"
    assert reasons[1] == "no file it changed is left to tie a memory to (gone, or Tether's own)"


def test_tether_files_committed_along_are_not_what_a_memory_is_about(history: History) -> None:
    start = history.head()
    history.commit(GOTCHAS[0], "src/app.py", ".tether/memories/0123abcd.md", ".tether/config.toml")
    history.commit(GOTCHAS[1], ".tether/memories/4567abcd.md")
    report = run(history, start)
    (written,) = report.written
    assert history.fields(written.id)["files"] == ["src/app.py"]
    assert (
        report.outcomes[1].reason
        == "no file it changed is left to tie a memory to (gone, or Tether's own)"
    )


def test_a_secret_in_a_commit_message_is_refused_and_said(history: History) -> None:
    start = history.head()
    history.commit("Never commit the key\n\nWe must not use password = hunter2hunter2xyz again.")
    report = run(history, start)
    assert report.written == []
    assert "password" in report.outcomes[0].reason
    assert history.store.list(status="all") == []


def test_session_commits_are_those_after_the_session_started(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    history.commit(GOTCHAS[0], date="2020-01-01T00:00:00+00:00")
    history.store.remember(  # the index exists once the store has a memory
        history.store.prepare_memory(summary="seed", category="context", files=[])
    )
    monkeypatch.setenv("TETHER_NOW", "2021-01-01T00:00:00+00:00")
    count_turn(history.store.conn, "s1")
    monkeypatch.delenv("TETHER_NOW")
    later = history.commit(GOTCHAS[1], "src/util.py", date="2022-01-01T00:00:00+00:00")
    assert [c.sha for c in session_commits(history.store, "s1")] == [later]
    with pytest.raises(NotFound):
        session_commits(history.store, "no-such-session")


def test_the_session_a_session_start_looks_back_on(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    history.store.remember(
        history.store.prepare_memory(summary="seed", category="context", files=[])
    )
    conn = history.store.conn
    assert latest_session(conn) is None
    for when, session in (("2021-01-01", "a"), ("2021-02-01", "b"), ("2021-03-01", "c")):
        monkeypatch.setenv("TETHER_NOW", f"{when}T00:00:00+00:00")
        count_turn(conn, session)
    assert latest_session(conn) == "c"
    assert latest_session(conn, before="c") == "b"
    assert latest_session(conn, before="b") == "a"
    assert latest_session(conn, before="a") is None
    assert latest_session(conn, before="not-yet-recorded") == "c"


def test_auto_distill_is_off_by_default(history: History, monkeypatch: pytest.MonkeyPatch) -> None:
    history.store.remember(
        history.store.prepare_memory(summary="seed", category="context", files=[])
    )
    monkeypatch.setenv("TETHER_NOW", "2021-01-01T00:00:00+00:00")
    count_turn(history.store.conn, "s1")
    history.commit(GOTCHAS[0], date="2022-01-01T00:00:00+00:00")
    assert EngineSettings().auto_distill is False
    assert auto_distill(history.store, EngineSettings(), session="s2") is None
    assert len(history.store.list(status="all")) == 1  # the seed alone: nothing read or written
    report = auto_distill(history.store, EngineSettings(auto_distill=True), session="s2")
    assert report is not None
    assert [o.summary for o in report.written] == [GOTCHAS[0]]
    assert history.fields(report.written[0].id)["status"] == "pending"


def test_only_the_oldest_commits_are_read(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = history.head()
    shas = [history.commit(message) for message in GOTCHAS[:3]]
    monkeypatch.setattr("recall.distill.commits.MAX_COMMITS", 2)  # 200 is too many to make here
    commits = read_commits(history.root, since_commit=start)
    assert [c.sha for c in commits] == shas[:2]
    assert commits.unread == 1


def test_a_bad_since_is_bad_input(history: History) -> None:
    with pytest.raises(BadInput, match="not a commit"):
        read_commits(history.root, since_commit="no-such-ref")
    with pytest.raises(BadInput, match="not a commit"):
        read_commits(history.root, since_commit="--all")
