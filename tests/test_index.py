"""The derived index: kept in step with the files, and rebuilt from them whenever it is unusable.

Sync must pick up new, changed and removed files (hand edits included) on the next open;
malformed files are reported as ``path:line`` and skipped, never rewritten; a missing, truncated,
garbage, foreign or future-schema index is rebuilt with the same memories and one notice.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import OpenStore, git, remember

from recall.frontmatter import scalar
from recall.index import listing
from recall.index.schema import SCHEMA_VERSION
from recall.index.sync import RACY_WINDOW_NS, sync
from recall.search import search
from recall.store import MemoryStore


@pytest.fixture
def seeded(open_store: Callable[..., OpenStore]) -> MemoryStore:
    """A project store holding three memories with varied state."""
    store = open_store().store
    a = remember(store, "Pool connections", details="Never open raw sockets.", anchor="pool()")
    b = remember(store, "Prefer tabs", category="pref", files=["docs/guide.md"])
    c = remember(store, "Old decision", category="decision", files=[])
    store.set_pinned(a, True)
    store.set_status(c, "archived", allowed_from=("active",))
    assert b
    return store


def snapshot(store: MemoryStore) -> list[dict[str, object]]:
    """Every memory the store answers with, in a stable order."""
    return sorted((m.to_dict() for m in store.list(status="all")), key=lambda d: str(d["id"]))


def folder(store: MemoryStore) -> Path:
    """The memories folder of a store."""
    return store.location.memories_dir


def write_file(store: MemoryStore, name: str, text: str) -> Path:
    """Write a memory file by hand, as a person with an editor would."""
    path = folder(store) / name
    path.write_text(text, encoding="utf-8")
    return path


def file_state(path: Path) -> tuple[bytes, int]:
    """A file's bytes and mtime, to prove nothing rewrote it."""
    return path.read_bytes(), path.stat().st_mtime_ns


# -- schema ------------------------------------------------------------------------------------


def test_index_is_wal_with_a_busy_timeout_and_a_schema_version(seeded: MemoryStore) -> None:
    conn = seeded.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert int(version) == SCHEMA_VERSION


def test_per_user_state_tables_exist(seeded: MemoryStore) -> None:
    def columns(table: str) -> set[str]:
        return {row[1] for row in seeded.conn.execute(f"PRAGMA table_info({table})")}

    assert {"surfaced", "acted", "last_surfaced", "last_acted", "archived_by_disuse"} <= columns(
        "usage"
    )
    assert columns("sessions")


def test_index_stays_out_of_git_and_memories_go_in(seeded: MemoryStore, repo: Path) -> None:
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert ".tether/memories/" in status
    assert "index.db" not in status
    assert "write.lock" not in status


def test_fts_tables_use_unicode61_and_trigram(seeded: MemoryStore) -> None:
    sql = " ".join(
        row[0]
        for row in seeded.conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql LIKE '%fts5%'"
        )
    )
    assert "unicode61" in sql and "trigram" in sql


# -- sync ------------------------------------------------------------------------------------


def test_unchanged_folder_syncs_to_nothing(seeded: MemoryStore) -> None:
    assert not seeded.refresh().touched


def test_new_hand_written_file_is_picked_up(seeded: MemoryStore) -> None:
    write_file(seeded, "notes.md", "---\ncategory: gotcha\nfiles: [src/util.py]\n---\nBy hand\n")
    report = seeded.refresh()
    assert (report.added, report.changed, report.removed, report.problems) == (1, 0, 0, [])
    [memory] = seeded.list(file="src/util.py")
    assert memory.summary == "By hand"
    assert seeded.get(memory.id).summary == "By hand"
    assert [h.memory.id for h in search(seeded.conn, "hand")] == [memory.id]


def test_hand_edit_is_picked_up_by_the_next_open(
    seeded: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    [memory] = seeded.list(file="docs/guide.md")
    path = folder(seeded) / f"{memory.id}.md"
    path.write_text(path.read_text().replace("Prefer tabs", "Prefer spaces, always"))
    fresh = open_store().store
    assert fresh.get(memory.id).summary == "Prefer spaces, always"
    assert fresh.last_sync is not None and fresh.last_sync.changed == 1
    assert [h.memory.id for h in search(fresh.conn, "spaces")] == [memory.id]
    assert search(fresh.conn, "tabs") == []


def test_same_size_edit_with_an_unchanged_mtime_is_picked_up(
    seeded: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    """An edit right after a write can keep the file's mtime on coarse-clock filesystems.

    FAT/exFAT (2 s), SMB and HFS+ (1 s) and kernels with jiffy-granular timestamps give a file
    edited within the same tick as its last write the same mtime; with the same size, only the
    content tells the edit apart (git's "racily clean" problem). Simulated with os.utime.
    """
    [memory] = seeded.list(file="docs/guide.md")
    path = folder(seeded) / f"{memory.id}.md"
    before = path.stat()
    text = path.read_text()
    path.write_text(text.replace("Prefer tabs", "Prefer TABS"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    fresh = open_store().store
    assert fresh.get(memory.id).summary == "Prefer TABS"


def settle(store: MemoryStore) -> None:
    """Date the memory files and their folder an hour back, as a folder left alone is: its
    time then tells any file added, removed or renamed since. Dating it moved the folder's
    change time, which cannot be set back: that one is waited out."""
    past = time.time() - 3600
    for path in folder(store).iterdir():
        os.utime(path, (past, past))
    os.utime(folder(store), (past, past))
    wait_out_racy_window(folder(store))


def wait_out_racy_window(path: Path) -> None:
    """Sleep until the folder's change time is older than the racy window (by ``time.time``,
    which a test may leave alone while it moves ``time.time_ns``)."""
    settles = (path.stat().st_ctime_ns + RACY_WINDOW_NS) / 1e9
    time.sleep(max(0.0, settles - time.time()) + 0.05)


def kept_listing(store: MemoryStore) -> bytes | None:
    """The folder listing the index keeps, if any."""
    row = store.conn.execute("SELECT value FROM meta WHERE key = 'folder_listing'").fetchone()
    return None if row is None else bytes(row[0])


def listings(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every listing of a folder from now on (``os.listdir`` is still called)."""
    seen: list[object] = []
    real = os.listdir

    def listdir(path: object = ".") -> list[object]:
        seen.append(path)
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "listdir", listdir)
    return seen


def test_a_settled_folder_is_confirmed_without_listing_it(
    seeded: MemoryStore, open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    settle(seeded)
    assert seeded.refresh().touched is False  # its times moved: compared, and listed once more
    assert not open_store().store.refresh().touched
    listed = listings(seeded, monkeypatch)
    assert not open_store().store.refresh().touched
    assert listed == []


def test_a_folder_changed_within_the_racy_window_is_listed_on_every_open(
    seeded: MemoryStore, open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its time could stay the same through another change within the same clock tick (see
    # RACY_WINDOW_NS), so it tells nothing yet: the folder is listed each time.
    assert not open_store().store.refresh().touched
    listed = listings(seeded, monkeypatch)
    assert not open_store().store.refresh().touched
    assert listed


def test_an_edit_in_place_in_a_settled_folder_is_picked_up_by_the_next_open(
    seeded: MemoryStore, open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    settle(seeded)
    seeded.refresh()
    [memory] = seeded.list(file="docs/guide.md")
    path = folder(seeded) / f"{memory.id}.md"
    folder_time = folder(seeded).stat().st_mtime_ns
    with path.open("r+", encoding="utf-8") as handle:  # rewritten in place: same file
        text = handle.read().replace("Prefer tabs", "Prefer TABS")
        handle.seek(0)
        handle.write(text)
    assert folder(seeded).stat().st_mtime_ns == folder_time
    listed = listings(seeded, monkeypatch)
    fresh = open_store().store
    assert fresh.get(memory.id).summary == "Prefer TABS"
    assert fresh.last_sync is not None and fresh.last_sync.changed == 1
    assert listed  # the edit was seen by the file's own time, then the folder compared


def test_a_file_added_then_the_folder_time_set_back_is_picked_up(
    seeded: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    # touch -r, rsync -a, cp -a and tar x put a folder's modification time back after filling it.
    settle(seeded)
    seeded.refresh()
    assert kept_listing(seeded) is not None
    before = folder(seeded).stat()
    write_file(seeded, "notes.md", "---\ncategory: gotcha\nfiles: [src/util.py]\n---\nNew\n")
    os.utime(folder(seeded), ns=(before.st_atime_ns, before.st_mtime_ns))
    fresh = open_store().store
    assert "New" in [m.summary for m in fresh.list(status="all")]


def test_a_listing_is_kept_only_once_settled_by_the_file_systems_time(
    seeded: MemoryStore, open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    # This machine's clock an hour ahead of the file system's (a file server's clock behind):
    # by it, a folder changed just now looks settled; by the file system's, it is not.
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + 3_600_000_000_000)
    write_file(seeded, "notes.md", "---\ncategory: gotcha\nfiles: [src/util.py]\n---\nNew\n")
    assert seeded.refresh().added == 1
    assert not open_store().store.refresh().touched
    assert kept_listing(seeded) is None
    wait_out_racy_window(folder(seeded))  # the file system's time moves past the window
    assert not open_store().store.refresh().touched
    assert kept_listing(seeded) is not None


def test_a_listing_kept_from_a_read_gives_way_to_a_writer_and_keeps_the_busy_timeout(
    seeded: MemoryStore,
) -> None:
    conn = seeded.conn
    waited = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    stamp = listing.folder_stamp(folder(seeded))
    assert stamp is not None
    listing.keep_if_free(conn, None, [])
    with contextlib.closing(sqlite3.connect(seeded.location.index_path)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        listing.keep_if_free(conn, stamp, [b"a.md"])  # busy: keeps nothing, at once
        writer.execute("ROLLBACK")
    assert kept_listing(seeded) is None
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == waited
    listing.keep_if_free(conn, stamp, [b"a.md"])
    assert kept_listing(seeded) is not None
    assert listing.kept_names(conn, stamp) is None  # kept, not trusted until confirmed
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == waited


def test_a_listing_whose_confirmation_meets_a_busy_index_is_not_trusted(
    seeded: MemoryStore,
) -> None:
    # The confirmation is a second write; a writer in the way must leave the listing as it was
    # kept (untrusted: the folder is listed on the next open), never trusted unchecked.
    settle(seeded)
    conn = seeded.conn
    stamp = listing.folder_stamp(folder(seeded))
    assert stamp is not None
    listing.keep_if_free(conn, stamp, [b"a.md"])
    with contextlib.closing(sqlite3.connect(seeded.location.index_path)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        listing.confirm(conn, stamp, RACY_WINDOW_NS)
        writer.execute("ROLLBACK")
    assert listing.kept_names(conn, stamp) is None
    listing.confirm(conn, stamp, RACY_WINDOW_NS)
    assert listing.kept_names(conn, stamp) == [b"a.md"]


@pytest.mark.parametrize("change", ["add", "remove", "rename"])
def test_a_file_added_removed_or_renamed_in_a_settled_folder_is_picked_up(
    seeded: MemoryStore, open_store: Callable[..., OpenStore], change: str
) -> None:
    settle(seeded)
    seeded.refresh()
    [memory] = seeded.list(file="docs/guide.md")
    path = folder(seeded) / f"{memory.id}.md"
    if change == "add":
        write_file(seeded, "notes.md", "---\ncategory: gotcha\nfiles: [src/util.py]\n---\nNew\n")
    elif change == "remove":
        path.unlink()
    else:
        path.rename(folder(seeded) / "renamed.md")
    fresh = open_store().store
    fresh.conn  # noqa: B018 - opening syncs
    report = fresh.last_sync
    assert report is not None
    assert (report.added, report.removed) == {
        "add": (1, 0),
        "remove": (0, 1),
        "rename": (1, 1),
    }[change]


def test_touched_but_unchanged_file_is_not_a_change(seeded: MemoryStore) -> None:
    [memory] = seeded.list(file="docs/guide.md")
    path = folder(seeded) / f"{memory.id}.md"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    report = seeded.refresh()
    assert (report.added, report.changed, report.removed, report.problems) == (0, 0, 0, [])
    assert not seeded.refresh().touched


def test_removed_file_leaves_the_index(seeded: MemoryStore) -> None:
    [memory] = seeded.list(file="docs/guide.md")
    (folder(seeded) / f"{memory.id}.md").unlink()
    report = seeded.refresh()
    assert report.removed == 1
    assert seeded.find(memory.id) is None
    assert search(seeded.conn, "tabs") == []
    count = seeded.conn.execute(
        "SELECT count(*) FROM memory_files WHERE path = 'docs/guide.md'"
    ).fetchone()[0]
    assert count == 0


def test_renamed_file_keeps_its_front_matter_id(seeded: MemoryStore) -> None:
    [memory] = seeded.list(file="docs/guide.md")
    os.rename(folder(seeded) / f"{memory.id}.md", folder(seeded) / "renamed.md")
    report = seeded.refresh()
    assert report.problems == []
    assert seeded.path_of(memory.id).name == "renamed.md"
    assert seeded.get(memory.id).summary == "Prefer tabs"


def test_paths_written_by_hand_are_normalized_in_the_index(seeded: MemoryStore) -> None:
    path = write_file(
        seeded,
        "paths.md",
        "---\ncategory: context\nfiles: [./src//app.py, 'src\\util.py']\n---\nP\n",
    )
    seeded.refresh()
    [memory] = [m for m in seeded.list() if m.summary == "P"]
    assert memory.files == ("src/app.py", "src/util.py")
    assert "./src//app.py" in path.read_text()  # the file itself is left as written


def test_directories_and_temp_files_in_the_folder_are_ignored(seeded: MemoryStore) -> None:
    before = snapshot(seeded)
    (folder(seeded) / "sub.md").mkdir()
    write_file(seeded, ".tmp-123-abcdabcd.md", "---\ncategory: pref\n---\nhalf")
    write_file(seeded, "README.txt", "not a memory")
    report = seeded.refresh()
    assert report.problems == []
    assert snapshot(seeded) == before


# -- malformed files -----------------------------------------------------------------------------

MALFORMED = {
    "bad-yaml.md": ("---\ncategory: gotcha\nfiles: a: b\npinned: false\n---\nS\n", 3, "bad YAML"),
    "bad-category.md": ("---\nfiles: []\ncategory: wisdom\n---\nS\n", 3, "unknown category"),
    "no-summary.md": ("---\ncategory: gotcha\n---\n\n", 4, "missing summary"),
    "no-fence.md": ("category: gotcha\nS\n", 1, "no front matter"),
    "outside.md": (
        "---\ncategory: gotcha\nfiles:\n  - ok.py\n  - ../../x.py\n---\nS\n",
        5,
        "outside",
    ),
    "outside-inline.md": (
        "---\ncategory: gotcha\nfiles: [ok.py, ../../x.py]  # on one line\npinned: false\n---\nS\n",
        3,
        "outside",
    ),
    "latin1.md": ("---\ncategory: gotcha\n---\ncaf\xe9\n", 4, "UTF-8"),
    # git's conflict markers: in the body, in front matter YAML cannot read, and inside a
    # quoted value YAML reads whole (each said at the opening marker's line)
    "conflict-body.md": (
        "---\ncategory: gotcha\n---\n<<<<<<< HEAD\nOurs\n=======\nTheirs\n>>>>>>> other\n",
        4,
        "unresolved merge conflict",
    ),
    "conflict-front.md": (
        "---\ncategory: gotcha\n<<<<<<< HEAD\npinned: true\n=======\npinned: false\n"
        ">>>>>>> other\n---\nS\n",
        3,
        "unresolved merge conflict",
    ),
    "conflict-quoted.md": (
        '---\ncategory: gotcha\nnote: "one\n<<<<<<< HEAD\ntwo\n=======\nthree\n'
        '>>>>>>> other\n"\n---\nS\n',
        4,
        "unresolved merge conflict",
    ),
}


def write_malformed(store: MemoryStore) -> dict[str, tuple[Path, tuple[bytes, int]]]:
    """Write every malformed sample; return path and (bytes, mtime) per file name."""
    written = {}
    for name, (text, _, _) in MALFORMED.items():
        path = folder(store) / name
        data = text.encode("latin-1") if name == "latin1.md" else text.encode("utf-8")
        path.write_bytes(data)
        written[name] = (path, file_state(path))
    return written


def test_malformed_files_are_reported_with_path_and_line_and_skipped(
    seeded: MemoryStore,
) -> None:
    before = snapshot(seeded)
    write_malformed(seeded)
    report = seeded.refresh()
    assert len(report.problems) == len(MALFORMED)
    problems = {p.path.name: p for p in seeded.problems()}
    assert set(problems) == set(MALFORMED)
    for name, (_, line, fragment) in MALFORMED.items():
        found = problems[name]
        assert found.path == folder(seeded) / name
        assert found.line == line, name
        assert fragment in found.message, name
        assert str(found).startswith(f"{folder(seeded) / name}:{line}: ")
    assert snapshot(seeded) == before


def test_malformed_files_are_never_rewritten(
    seeded: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    written = write_malformed(seeded)
    seeded.refresh()
    [active] = [m for m in seeded.list() if m.summary == "Prefer tabs"]
    seeded.set_pinned(active.id, True)
    remember(seeded, "another write")
    seeded.purge()
    seeded.reindex()
    again = open_store().store
    assert len(again.problems()) == len(MALFORMED)
    for path, state in written.values():
        assert file_state(path) == state


def test_problems_are_remembered_across_opens_and_cleared_when_fixed(
    seeded: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    path = write_file(seeded, "fixme.md", "---\ncategory: wisdom\n---\nFix me\n")
    seeded.refresh()
    reopened = open_store().store
    assert [p.path.name for p in reopened.problems()] == ["fixme.md"]
    path.write_text("---\ncategory: gotcha\n---\nFixed now\n")
    report = reopened.refresh()
    assert report.problems == []
    assert reopened.problems() == []
    assert [m.summary for m in reopened.list() if m.summary.startswith("Fix")] == ["Fixed now"]


def test_a_known_memory_that_turns_malformed_leaves_the_index(seeded: MemoryStore) -> None:
    [memory] = seeded.list(file="docs/guide.md")
    path = folder(seeded) / f"{memory.id}.md"
    path.write_text(path.read_text().replace("category: pref", "category: [pref"))
    report = seeded.refresh()
    assert len(report.problems) == 1
    assert seeded.find(memory.id) is None
    assert search(seeded.conn, "tabs") == []


def test_duplicate_id_in_a_second_file_is_a_problem(seeded: MemoryStore) -> None:
    [memory] = seeded.list(file="docs/guide.md")
    text = (folder(seeded) / f"{memory.id}.md").read_text()
    copy = write_file(seeded, "zz-copy.md", text.replace("Prefer tabs", "Prefer tabs (copy)"))
    report = seeded.refresh()
    assert len(report.problems) == 1
    [problem] = seeded.problems()
    assert problem.path == copy
    assert "duplicate id" in problem.message
    # the problem's line is the one giving the id, for an editor's mark and doctor's answer
    assert copy.read_text().splitlines()[problem.line - 1] == f"id: {scalar(memory.id)}"
    assert report.problems == [f"{copy}:{problem.line}: {problem.message}"]
    assert seeded.get(memory.id).summary == "Prefer tabs"


def test_the_file_named_after_an_id_holds_it_whatever_the_order_of_a_scan(
    seeded: MemoryStore,
) -> None:
    """A copy made to start a new memory keeps the id it was copied with: the file named
    after the id holds it, before and after a reindex (which reads the files in name order,
    the copy's first)."""
    [memory] = seeded.list(file="docs/guide.md")
    text = (folder(seeded) / f"{memory.id}.md").read_text()
    copy = write_file(seeded, "0-copy.md", text.replace("Prefer tabs", "A draft copy"))
    for refreshed in (seeded.refresh, seeded.reindex):
        refreshed()
        assert seeded.get(memory.id).summary == "Prefer tabs"
        assert [p.path for p in seeded.problems()] == [copy]


def test_a_file_left_out_for_its_id_is_read_again_once_the_holder_goes(
    seeded: MemoryStore,
) -> None:
    """Two files named otherwise, one id: once the one holding it is deleted, the other is
    indexed at the next look at the folder, though it did not change itself."""
    [memory] = seeded.list(file="docs/guide.md")
    text = (folder(seeded) / f"{memory.id}.md").read_text()
    (folder(seeded) / f"{memory.id}.md").unlink()
    first = write_file(seeded, "a-first.md", text.replace("Prefer tabs", "The first"))
    second = write_file(seeded, "b-second.md", text.replace("Prefer tabs", "The second"))
    settled = time.time() - 60  # older than the racy window: a look trusts their stats
    for path in (first, second):
        os.utime(path, (settled, settled))
    seeded.refresh()
    assert seeded.get(memory.id).summary == "The first"
    first.unlink()
    seeded.refresh()
    assert seeded.get(memory.id).summary == "The second"
    assert seeded.problems() == []


# -- rebuilding an unusable index ------------------------------------------------------------------


def break_by_deleting(index: Path) -> None:
    """Remove the index and its WAL companions."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)


def break_by_truncating(index: Path) -> None:
    """Cut the index to zero bytes."""
    Path(f"{index}-wal").unlink(missing_ok=True)
    Path(f"{index}-shm").unlink(missing_ok=True)
    index.write_bytes(b"")


def break_by_halving(index: Path) -> None:
    """Keep only the first half of the index file."""
    data = index.read_bytes()
    Path(f"{index}-wal").unlink(missing_ok=True)
    Path(f"{index}-shm").unlink(missing_ok=True)
    index.write_bytes(data[: len(data) // 2])


def break_with_garbage(index: Path) -> None:
    """Replace the index by bytes that are not SQLite."""
    Path(f"{index}-wal").unlink(missing_ok=True)
    Path(f"{index}-shm").unlink(missing_ok=True)
    index.write_bytes(os.urandom(1000) + b"not a database" * 300)


def break_by_garbling_pages(index: Path) -> None:
    """Overwrite part of every other page after the schema: a disk or copy gone bad, same size."""
    Path(f"{index}-wal").unlink(missing_ok=True)
    Path(f"{index}-shm").unlink(missing_ok=True)
    data = bytearray(index.read_bytes())
    page = 4096
    for number in range(2, len(data) // page, 2):
        data[number * page + 100 : number * page + 600] = b"\xa5" * 500
    index.write_bytes(bytes(data))


def break_with_future_schema(index: Path) -> None:
    """Stamp the index with a schema version newer than this code knows."""
    with sqlite3.connect(index) as conn:
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 7),)
        )


def break_with_foreign_database(index: Path) -> None:
    """Replace the index by some other SQLite database."""
    break_by_deleting(index)
    with sqlite3.connect(index) as conn:
        conn.execute("CREATE TABLE photos(id INTEGER PRIMARY KEY, blob BLOB)")


def break_with_unknown_old_schema(index: Path) -> None:
    """Stamp the index with a schema version no migration starts from."""
    with sqlite3.connect(index) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")


BREAKERS = [
    break_by_deleting,
    break_by_truncating,
    break_by_halving,
    break_with_garbage,
    break_by_garbling_pages,
    break_with_future_schema,
    break_with_foreign_database,
    break_with_unknown_old_schema,
]


@pytest.mark.parametrize("breaker", BREAKERS, ids=lambda f: f.__name__)
def test_unusable_index_is_rebuilt_with_the_same_memories_and_one_notice(
    seeded: MemoryStore, open_store: Callable[..., OpenStore], breaker: Callable[[Path], None]
) -> None:
    for _ in range(30):  # enough rows that halving the file cuts real pages
        remember(seeded, f"filler {_}", details="x" * 200)
    before = snapshot(seeded)
    index = seeded.location.index_path
    seeded.close()
    breaker(index)

    rebuilt, notices = open_store()
    assert snapshot(rebuilt) == before
    assert len(notices) == 1, notices
    assert str(index) in notices[0]
    assert "rebuil" in notices[0]
    assert [h.memory.summary for h in search(rebuilt.conn, "connections")] == ["Pool connections"]
    version = rebuilt.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'")
    assert int(version.fetchone()[0]) == SCHEMA_VERSION

    calm, calm_notices = open_store()
    assert snapshot(calm) == before
    assert calm_notices == []


def test_missing_index_for_an_empty_store_is_silent(open_store: Callable[..., OpenStore]) -> None:
    store = open_store().store
    memory_id = remember(store, "temporary")
    store.set_status(memory_id, "deleted", allowed_from=("active",))
    assert store.purge() == [memory_id]
    store.close()
    break_by_deleting(store.location.index_path)
    fresh, notices = open_store()
    assert fresh.list(status="all") == []
    assert notices == []


def test_reindex_rebuilds_from_files_without_alarming_notices(
    seeded: MemoryStore,
) -> None:
    before = snapshot(seeded)
    notices: list[str] = []
    seeded.notice = notices.append
    report = seeded.reindex()
    assert report.added == len(before)
    assert snapshot(seeded) == before
    assert not any("missing" in n or "unusable" in n for n in notices), notices


def test_usage_state_survives_a_normal_reopen(
    seeded: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    from recall.policy.usage import counters, record_action

    [memory] = seeded.list(file="docs/guide.md")
    record_action(seeded.conn, memory.id)
    again = open_store().store
    assert counters(again.conn, memory.id)["acted"] == 1


def test_a_folder_taken_away_under_an_open_store_leaves_the_index_as_it_was(
    seeded: MemoryStore,
) -> None:
    """A branch switch or a clean takes the memory folder away while a process has the store
    open: a sync then (a folder change noticed) must not empty the index, which serves the
    memories again (as last committed) the moment the folder is back."""
    before = snapshot(seeded)
    moved = folder(seeded).with_name("memories-elsewhere")
    folder(seeded).rename(moved)
    report = sync(seeded.conn, seeded.folder, seeded.normalize_stored)
    assert report.removed == 0
    index = sqlite3.connect(seeded.location.index_path)
    try:
        assert index.execute("SELECT count(*) FROM memories").fetchone()[0] == len(before)
    finally:
        index.close()
    moved.rename(folder(seeded))
    assert snapshot(seeded) == before


def test_a_folder_taken_away_after_its_listing_leaves_the_index_as_it_was(
    seeded: MemoryStore,
) -> None:
    [memory] = seeded.list(file="docs/guide.md")
    path = folder(seeded) / f"{memory.id}.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nEdited by hand.\n", encoding="utf-8")
    before = snapshot(seeded)
    away = folder(seeded).with_name("memories-away")

    def take_away(statement: str) -> None:
        # another process (a branch switch) takes the folder away once it is listed, while
        # this sync starts its write to the index
        if statement == "BEGIN IMMEDIATE" and folder(seeded).is_dir():
            folder(seeded).rename(away)

    seeded.conn.set_trace_callback(take_away)
    try:
        report = seeded.refresh()
    finally:
        seeded.conn.set_trace_callback(None)
    assert not away.with_name("memories").exists()  # the folder was taken away mid-sync
    assert (report.added, report.changed, report.removed) == (0, 0, 0)
    assert snapshot(seeded) == before  # the edited memory still indexed, as it was
    away.rename(folder(seeded))
    seeded.refresh()
    assert "Edited by hand." in str(seeded.find(memory.id).details)
