"""An index another process holds past the wait is busy, never damaged.

Opening a store whose index another connection keeps locked used to count the lock as a
damaged file once the default wait ran out: the store then removed the index under that
writer and rebuilt it from the files. It must say the index is busy and leave it alone.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import OpenStore, remember

from recall.errors import StoreBusy
from recall.index import db

WAIT_MS = 150  # the default wait, shortened so the test does not sit out 15 s


@pytest.fixture
def short_default_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", WAIT_MS)


@contextlib.contextmanager
def _held_exclusively(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that keeps every other one out of the index until closed."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
    holder.execute("COMMIT")  # the exclusive lock stays after the commit
    try:
        yield holder
    finally:
        holder.close()


@pytest.mark.usefixtures("short_default_wait")
def test_a_store_held_past_the_default_wait_is_busy_not_rebuilt(
    open_store: Callable[..., OpenStore],
) -> None:
    first = open_store().store
    kept = remember(first, "Close the pool before the fork")
    first.close()
    index = first.location.index_path
    identity = db.file_identity(index)

    opened = open_store()
    with _held_exclusively(index), pytest.raises(StoreBusy) as raised:
        opened.store.count()
    message = str(raised.value)
    assert str(index) in message
    assert "retry" in message
    assert not [n for n in opened.notices if "rebuilding" in n]
    assert db.file_identity(index) == identity  # the same file: not removed and made again

    opened.store.close()
    again = open_store().store
    assert again.get(kept).summary == "Close the pool before the fork"
