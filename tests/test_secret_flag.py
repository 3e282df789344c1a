"""The index says which memories hold a credential in their text (the ``secret`` column, read
as :attr:`Memory.holds_secret`), so that what agents are given of them is masked without a scan
on every read: set when a file written by hand (or a memory written past the scan) is indexed,
cleared when the person removes the credential, and set on the upgrade of an index from before
it, every file read once more without a memory indexed anew."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from conftest import OpenStore, remember

from recall.index.schema import SCHEMA_VERSION
from recall.store import MemoryStore

KEY = "AKIA" + "IOSFODNN7ABCDEFG"  # made up; joined so no scanner trips on this file
HAND_WRITTEN = f"---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\nthe deploy key is {KEY}\n"


def _flags(store: MemoryStore) -> dict[str, int]:
    return dict(store.conn.execute("SELECT id, secret FROM memories").fetchall())


def test_the_index_says_which_memories_hold_a_credential(store: MemoryStore) -> None:
    clean = remember(store, "the pool must be closed")
    allowed = remember(store, "the old deploy key", details=KEY, allow_secret=True)
    path = store.location.memories_dir / "handmade.md"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    store.refresh()
    [by_hand] = [m.id for m in store.list() if m.id not in (clean, allowed)]
    assert _flags(store) == {clean: 0, allowed: 1, by_hand: 1}
    assert store.get(by_hand).holds_secret and not store.get(clean).holds_secret

    path.write_text(HAND_WRITTEN.replace(KEY, "in $DEPLOY_KEY"), encoding="utf-8")
    store.refresh()
    assert _flags(store)[by_hand] == 0  # removed by hand: nothing to mask any more


def test_an_index_from_before_the_flag_sets_it_on_upgrade(
    store: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    store.location.memories_dir.mkdir(parents=True, exist_ok=True)
    (store.location.memories_dir / "handmade.md").write_text(HAND_WRITTEN, encoding="utf-8")
    clean = remember(store, "the pool must be closed")
    rows = dict(store.conn.execute("SELECT id, rowid FROM memories").fetchall())
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:  # back to what version 8 created: no flag
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")
        conn.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    upgraded, notices = open_store()
    assert notices == []  # migrated, not rebuilt
    version = upgraded.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'")
    assert int(version.fetchone()[0]) == SCHEMA_VERSION
    by_hand = next(memory_id for memory_id in rows if memory_id != clean)
    assert _flags(upgraded) == {clean: 0, by_hand: 1}
    # every file read again, none indexed anew (its vectors and rowid kept)
    assert dict(upgraded.conn.execute("SELECT id, rowid FROM memories").fetchall()) == rows
