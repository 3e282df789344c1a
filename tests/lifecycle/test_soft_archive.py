"""Soft-archive by disuse over simulated days: the session start where it happens, who is
exempt, what hides it and what brings it back; the memory file is never touched."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import remember

from recall.cli.render import badges
from recall.lifecycle.disuse import archived_by_disuse, is_archived_by_disuse
from recall.lifecycle.session_start import archived_line
from recall.settings import EngineSettings
from recall.store import MemoryStore

from .conftest import Clock, hook_session_start, session_start, surface, tether, usage_row

SUMMARY = "flush() before close() or the session store drops its last write"


def six_spread(store: MemoryStore, memory_id: str, *, last_day: float = 40) -> None:
    """Six surfacings from day 0 to ``last_day``, evenly spread."""
    for n in range(6):
        surface(store, [memory_id], n * last_day / 5)


def test_six_surfacings_archive_at_the_first_session_start_45_days_after_the_first(
    store: MemoryStore, clock: Clock
) -> None:
    memory = remember(store, SUMMARY)
    six_spread(store, memory)
    assert session_start(store, clock, 44.99).archived == {}  # 6 within 44 days: not yet
    assert not is_archived_by_disuse(store.conn, memory)
    result = session_start(store, clock, 45)
    assert [a.memory_id for a in result.archived["project"]] == [memory]
    assert result.archived["project"][0].surfaced == 6
    assert archived_by_disuse(store.conn) == {memory: "2026-02-19T09:00:00+00:00"}
    assert session_start(store, clock, 46).archived == {}  # once only


def test_five_surfacings_never_archive_however_long(store: MemoryStore, clock: Clock) -> None:
    memory = remember(store, SUMMARY)
    for day in (0, 20, 40, 60, 80):
        surface(store, [memory], day)
    assert session_start(store, clock, 400).archived == {}
    surface(store, [memory], 401)
    assert session_start(store, clock, 402).archived["project"][0].memory_id == memory


def test_the_window_runs_from_the_first_showing_to_the_session_start(
    store: MemoryStore, clock: Clock
) -> None:
    """Six showings inside one week, then 45 quiet days: it had its chance and was ignored."""
    memory = remember(store, SUMMARY)
    for day in range(6):
        surface(store, [memory], day)
    assert session_start(store, clock, 44).archived == {}
    assert session_start(store, clock, 45).archived["project"][0].memory_id == memory


def test_acted_on_once_or_pinned_never_archives(store: MemoryStore, clock: Clock) -> None:
    acted = remember(store, "acted on once", files=["src/util.py"])
    pinned = remember(store, "pinned by a person", files=["README.md"], pinned=True)
    for memory in (acted, pinned):
        for day in range(0, 100, 10):
            surface(store, [memory], day)
    clock.set(50)
    assert tether(store.repo_root, "show", acted).code == 0  # fetching the details is acting
    assert session_start(store, clock, 120).archived == {}
    assert usage_row(store, pinned)["surfaced"] == 10


def test_a_guard_asked_about_again_and_again_never_archives(
    store: MemoryStore, clock: Clock
) -> None:
    """A guard's showings are questions to a person, and an allowed edit is not an act on it:
    archived by disuse, its edits would go unasked. Only a person lifts a guard."""
    from recall.anchors.guards import set_guard

    guarded = remember(store, "retry stays at three", files=["src/util.py"], category="decision")
    set_guard(store, guarded, True)
    for day in range(0, 100, 10):
        surface(store, [guarded], day)
    assert session_start(store, clock, 120).archived == {}
    assert not is_archived_by_disuse(store.conn, guarded)


def test_guarding_an_archived_memory_brings_it_back(store: MemoryStore, clock: Clock) -> None:
    from recall.anchors.guards import set_guard

    memory = remember(store, SUMMARY, files=["src/util.py"], category="decision")
    six_spread(store, memory)
    session_start(store, clock, 45)
    assert is_archived_by_disuse(store.conn, memory)
    set_guard(store, memory, True)
    session_start(store, clock, 46)
    assert archived_by_disuse(store.conn) == {}


def test_pinned_memories_carry_no_ignore_penalty(store: MemoryStore, clock: Clock) -> None:
    plain = remember(store, "util.helper returns 1, callers rely on it", files=["src/util.py"])
    pinned = remember(store, "util.helper is called from C", files=["src/util.py"], pinned=True)
    for day in range(8):
        surface(store, [plain, pinned], day)
    found = tether(store.repo_root, "recall", "--file", "src/util.py", "--no-record", "--json")
    signals = {hit["id"]: hit["signals"] for hit in found.json()["results"]}
    assert signals[plain]["ignored"] == -0.12
    assert "ignored" not in signals[pinned] and signals[pinned]["pinned"] == 0.1


def test_archived_memory_leaves_recall_and_hints_but_not_show_or_the_file(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    memory = remember(store, SUMMARY, files=["src/app.py"])
    other = remember(store, "app.py prints on import", files=["src/app.py"])
    path = store.path_of(memory)
    before = path.read_bytes()
    six_spread(store, memory)
    session_start(store, clock, 45)
    assert path.read_bytes() == before  # per user: the shared file is untouched

    found = tether(repo, "recall", "--file", "src/app.py", "--json").json()["results"]
    assert [hit["id"] for hit in found] == [other]
    edit = {
        "session_id": "s-edit",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / "src/app.py")},
    }
    from recall import hooks

    warned = hooks.run("pre-edit", json.dumps(edit))
    assert other in warned and memory not in warned

    shown = tether(repo, "show", memory, "--json").json()
    assert (shown["status"], shown["file_status"]) == ("archived", "active")  # as `list` says
    assert shown["archived_by"] == "disuse" and shown["archived_at"] == "2026-02-19T09:00:00+00:00"
    listed = tether(repo, "list", "--status", "archived", "--json").json()
    keys = ("status", "file_status", "archived_by", "archived_at")
    assert [{key: entry[key] for key in keys} for entry in listed] == [
        {key: shown[key] for key in keys}
    ]
    card = tether(repo, "show", memory).stdout
    assert "archived by disuse on 2026-02-19" in card and f"tether restore {memory}" in card
    assert f"{memory} (archived by disuse)" in card.splitlines()[0]  # its head, as `list` marks it


def test_list_marks_disuse_and_person_archives_apart(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    ignored = remember(store, SUMMARY)
    shelved = remember(store, "old deploy notes", files=["docs/guide.md"])
    kept = remember(store, "README badges are generated", files=["README.md"])
    six_spread(store, ignored)
    session_start(store, clock, 45)
    assert tether(repo, "archive", shelved).code == 0

    archived = tether(repo, "list", "--status", "archived", "--json").json()
    by_id = {entry["id"]: entry for entry in archived}
    assert set(by_id) == {ignored, shelved}
    assert by_id[ignored]["archived_by"] == "disuse" and by_id[ignored]["status"] == "archived"
    assert by_id[ignored]["file_status"] == "active"
    assert by_id[shelved]["archived_by"] == "person"
    table = tether(repo, "list", "--status", "archived").stdout
    assert "archived by disuse" in table
    active = tether(repo, "list", "--json").json()
    assert [entry["id"] for entry in active] == [kept]
    everything = {e["id"]: e for e in tether(repo, "list", "--status", "all", "--json").json()}
    assert everything[ignored]["archived_by"] == "disuse"
    assert badges(store.get(ignored), disuse=True) == "archived by disuse"
    assert badges(store.get(shelved), disuse=True) == "archived"


def test_archived_list_is_newest_first_with_disuse_archives_in_place(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    """Merged by ``created`` as the store orders a list, not appended after the others."""
    oldest = remember(store, "old deploy notes", created="2026-01-01T00:00:00+00:00")
    ignored = remember(store, SUMMARY, created="2026-01-02T00:00:00+00:00")
    newest = remember(store, "staging queue notes", created="2026-01-03T00:00:00+00:00")
    for memory in (oldest, newest):
        store.set_status(memory, "archived", allowed_from=("active",))
    six_spread(store, ignored)
    session_start(store, clock, 45)
    archived = tether(repo, "list", "--status", "archived", "--json").json()
    assert [entry["id"] for entry in archived] == [newest, ignored, oldest]
    table = tether(repo, "list", "--status", "archived").stdout
    assert table.index(newest) < table.index(ignored) < table.index(oldest)


def test_restore_brings_it_back_and_starts_its_count_afresh(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    memory = remember(store, SUMMARY, files=["src/app.py"])
    six_spread(store, memory)
    session_start(store, clock, 45)
    clock.set(46)
    restored = tether(repo, "restore", memory, "--json")
    assert restored.code == 0 and restored.json()["restored_from"] == "disuse"
    row = usage_row(store, memory)
    assert (row["archived_by_disuse"], row["surfaced"], row["first_surfaced"]) == (0, 0, None)
    again = tether(repo, "restore", memory)
    assert again.code == 1 and "already active" in again.stderr
    assert session_start(store, clock, 47).archived == {}  # not straight back out
    hits = tether(repo, "recall", "--file", "src/app.py", "--json").json()["results"]
    assert [hit["id"] for hit in hits] == [memory]

    for day in (50, 60, 70, 80, 90):  # with the recall above, six showings from day 47
        surface(store, [memory], day)
    assert session_start(store, clock, 91.9).archived == {}
    assert session_start(store, clock, 92).archived["project"][0].memory_id == memory


def test_restore_after_a_person_archived_a_disuse_archived_memory(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    memory = remember(store, SUMMARY)
    six_spread(store, memory)
    session_start(store, clock, 45)
    assert tether(repo, "archive", memory).code == 0
    assert tether(repo, "restore", memory).code == 0
    assert usage_row(store, memory)["archived_by_disuse"] == 0
    assert store.get(memory).status == "active"


def test_pinning_an_archived_memory_brings_it_back(store: MemoryStore, clock: Clock) -> None:
    memory = remember(store, SUMMARY)
    six_spread(store, memory)
    session_start(store, clock, 45)
    store.set_pinned(memory, True)
    assert archived_by_disuse(store.conn) == {}
    session_start(store, clock, 46)
    store.set_pinned(memory, False)
    assert archived_by_disuse(store.conn) == {}  # unpinned later, it stays back


def test_archiving_can_be_turned_off_or_retuned(store: MemoryStore, clock: Clock) -> None:
    memory = remember(store, SUMMARY)
    six_spread(store, memory)
    off = EngineSettings(archive_by_disuse=False)
    assert session_start(store, clock, 60, settings=off).archived == {}
    strict = EngineSettings(archive_min_surfacings=7)
    assert session_start(store, clock, 61, settings=strict).archived == {}
    store.repo_root.joinpath(".tether", "config.toml").write_text("archive_window_days = 100\n")
    assert tether(store.repo_root, "session", "start", "--json").json()["archived"] == []
    clock.set(100)
    started = tether(store.repo_root, "session", "start", "--json").json()
    assert [a["id"] for a in started["archived"]] == [memory]


def test_hook_and_cli_report_what_the_pass_archived(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    first = remember(store, SUMMARY)
    second = remember(store, "app.py prints on import", files=["src/app.py"])
    third = remember(store, "guide is outdated", files=["docs/guide.md"])
    for memory in (first, second, third):
        six_spread(store, memory)
    clock.set(45)
    out = hook_session_start(repo, "hook-session")
    assert json.loads(out) == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": archived_line(3),
        }
    }
    assert archived_line(3) == "tether: 3 ignored memories archived (tether list --status archived)"
    assert hook_session_start(repo, "hook-session") == ""  # nothing new to say

    fourth = remember(store, "one more", files=["src/util.py"])
    six_spread(store, fourth)
    clock.set(46)
    started = tether(repo, "session", "start")
    assert started.code == 0
    assert "Archived 1 ignored memory (project)" in started.stdout and fourth in started.stdout
    assert "Cleanup not due; it needs 20 sessions (2 so far) since the last pass" in started.stdout
    generated = tether(repo, "session", "start", "--json").json()["session"]
    assert len(generated) == 36  # a new uuid, printed for the caller to pass on
    bad = tether(repo, "session", "start", "--session", "")
    assert bad.code == 2 and "--session" in bad.stderr


def _recalled(root: Path) -> set[str]:
    done = tether(root, "recall", "-f", "src/util.py", "--no-record", "--json")
    assert done.code in (0, 1), done.stderr  # 1: nothing recalled
    return {hit["id"] for hit in json.loads(done.stdout)["results"]}


def test_a_guard_or_a_pin_brings_it_back_at_once_with_no_session_start(
    store: MemoryStore, clock: Clock
) -> None:
    """The person's command is the action: the memory is back before the next session start,
    and an unpin right after does not hide it again."""
    guarded = remember(store, SUMMARY, files=["src/util.py"], category="decision")
    pinned = remember(store, "the pool is per thread", files=["src/util.py"])
    six_spread(store, guarded)
    six_spread(store, pinned)
    session_start(store, clock, 45)
    root = store.repo_root
    assert _recalled(root) == set()
    assert tether(root, "guard", guarded).code == 0
    assert tether(root, "pin", pinned).code == 0
    assert tether(root, "unpin", pinned).code == 0
    assert _recalled(root) == {guarded, pinned}
    listed = json.loads(tether(root, "list", "--status", "archived", "--json").stdout)
    assert listed == []


def test_session_start_piped_says_what_it_archived_on_whole_lines(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    """Piped, the report is not wrapped at 80 columns: the commands it names and the
    memories' summaries read (and grep) as one line each."""
    long = "session files " + "and their very long explanation " * 3 + "end here"
    memory = remember(store, long)
    six_spread(store, memory)
    clock.set(45)
    started = tether(repo, "session", "start")
    assert started.code == 0, started.stderr
    lines = started.stdout.splitlines()
    assert (
        "Archived 1 ignored memory (project); `tether list --status archived` lists them, "
        "`tether restore ID` brings one back:"
    ) in lines
    assert f"  {memory}  shown 6x, never acted on: {long}" in lines
