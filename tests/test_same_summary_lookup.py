"""The memory holding a summary is found by the index's key of the summary, not by reading every
memory: the checks of a write (run on each change of a draft in the editor) cost the same in a
store of a few memories and in one of hundreds, and still find a summary held up to case,
spacing and Unicode forms; an index from before the key fills it on upgrade."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from conftest import OpenStore, remember

from recall.errors import NothingToDo
from recall.index.schema import SCHEMA_VERSION
from recall.model import Memory
from recall.same_summary import refuse_same_summary, same_summary, supersede_command
from recall.store import MemoryStore
from recall.written_checks import refusals

HELD = "the pool must be closed before the workers stop"


def _write_files(store: MemoryStore, first: int, count: int) -> None:
    """``count`` memory files written by hand (numbered from ``first``), then indexed."""
    folder = store.location.memories_dir
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(first, first + count):
        text = f"---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\nfact number {n}\n"
        (folder / f"hand{n:04d}.md").write_text(text, encoding="utf-8")
    store.refresh()


def _steps_of_checks(store: MemoryStore, draft: Memory) -> int:
    """How many steps SQLite's machine takes for the checks of a write of ``draft``."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    store.conn.set_progress_handler(count, 1)
    try:
        found = refusals(store, draft, replace=supersede_command, secret_override="")
    finally:
        store.conn.set_progress_handler(None, 1)
    assert [refusal.field for refusal in found] == ["summary"]
    assert "already has this summary" in found[0].message
    return steps


def test_the_checks_of_a_write_do_not_read_every_memory(store: MemoryStore) -> None:
    held = remember(store, HELD)
    _write_files(store, 0, 20)
    draft = Memory(
        id="new00001",
        category="decision",
        summary="The pool  MUST be closed before the workers stop",
    )
    few = _steps_of_checks(store, draft)
    _write_files(store, 20, 380)
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 401
    many = _steps_of_checks(store, draft)
    assert many == few  # one look-up of the key, however many memories the store holds
    assert many < 400  # fewer steps than memories: not one read of each
    plan = store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM memories "
        "WHERE summary_key = ? AND +status IN ('active', 'pending') ORDER BY created",
        ("x",),
    ).fetchall()
    assert "USING INDEX memories_summary_key" in " ".join(row[-1] for row in plan)
    assert same_summary(store.conn, draft).memory_id == held  # type: ignore[union-attr]


def test_a_summary_held_in_another_unicode_form_is_found(store: MemoryStore) -> None:
    held = remember(store, "ﬁle locks are advisory")  # the ligature NFKC reads as "fi"
    draft = Memory(id="new00002", category="decision", summary="FILE  locks are advisory")
    found = same_summary(store.conn, draft)
    assert found is not None and found.memory_id == held
    assert found.differs == ("its category is gotcha, not decision",)


def test_an_index_from_before_the_key_fills_it_on_upgrade(
    store: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    held = remember(store, HELD)
    rows = dict(store.conn.execute("SELECT id, rowid FROM memories").fetchall())
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:  # back to what version 11 created: no key
        conn.execute("DROP INDEX memories_summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    upgraded, notices = open_store()
    assert notices == []  # migrated, not rebuilt
    version = upgraded.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'")
    assert int(version.fetchone()[0]) == SCHEMA_VERSION
    # every file read again, none indexed anew (its vectors and rowid kept)
    assert dict(upgraded.conn.execute("SELECT id, rowid FROM memories").fetchall()) == rows
    draft = Memory(id="new00003", category="decision", summary=HELD.upper())
    try:
        refuse_same_summary(upgraded.conn, draft, supersede_command)
    except NothingToDo as refused:
        assert f"{held} already has this summary" in str(refused)
    else:
        raise AssertionError("the summary held before the upgrade was not found")
