"""Putting a memory out of recall by disuse the way it really happens, for tests elsewhere.

The memory is shown six times over forty days and never acted on, then the session-start pass
runs 45 days after the first showing and archives it (``recall.lifecycle.disuse.archive_ignored``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from recall.clock import format_timestamp
from recall.lifecycle.disuse import archive_ignored
from recall.policy.usage import record_surfacings
from recall.settings import EngineSettings
from recall.store import MemoryStore

FIRST_SHOWN = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
ARCHIVED_AT = format_timestamp(FIRST_SHOWN + timedelta(days=45))


def archive_by_disuse(store: MemoryStore, *memory_ids: str) -> None:
    """Show each memory six times across 40 days, then run the pass on day 45."""
    for day in range(0, 41, 8):
        when = format_timestamp(FIRST_SHOWN + timedelta(days=day))
        record_surfacings(store.conn, list(memory_ids), when=when)
    archived = archive_ignored(store.conn, EngineSettings(), FIRST_SHOWN + timedelta(days=45))
    assert sorted(a.memory_id for a in archived) == sorted(memory_ids)
