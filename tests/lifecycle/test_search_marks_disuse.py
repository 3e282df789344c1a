"""Search finds what disuse archived, marked: a person searching is asking for it, unlike recall,
which keeps it hidden."""

from __future__ import annotations

from pathlib import Path

from conftest import remember

from recall.search import search
from recall.store import MemoryStore

from .conftest import Clock, session_start, surface, tether

IGNORED = "flush() before close() or the session store drops its last write"
KEPT = "close() on the session store is idempotent"


def archive_one(store: MemoryStore, clock: Clock) -> tuple[str, str]:
    """Two memories on src/app.py; the first shown six times, never acted on, then archived."""
    ignored = remember(store, IGNORED, files=["src/app.py"])
    kept = remember(store, KEPT, files=["src/app.py"])
    for day in range(6):
        surface(store, [ignored], day * 8)
    assert session_start(store, clock, 45).archived["project"][0].memory_id == ignored
    return ignored, kept


def test_search_finds_a_disuse_archived_memory_and_marks_it(
    store: MemoryStore, clock: Clock
) -> None:
    ignored, kept = archive_one(store, clock)
    hits = {hit.memory.id: hit for hit in search(store.conn, "session store")}
    assert set(hits) == {ignored, kept}
    assert hits[ignored].disused and not hits[kept].disused
    archived = search(store.conn, "session store", status="archived")
    assert [(h.memory.id, h.disused) for h in archived] == [(ignored, True)]
    assert [h.memory.id for h in search(store.conn, "flush", status="superseded")] == []
    store.close()


def test_search_lists_it_marked_while_recall_still_hides_it(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    ignored, kept = archive_one(store, clock)
    found = tether(repo, "search", "session store", "--json")
    assert found.code == 0
    by_id = {entry["id"]: entry for entry in found.json()}
    assert by_id[ignored]["archived_by"] == "disuse" and by_id[ignored]["status"] == "archived"
    assert by_id[ignored]["file_status"] == "active"
    assert by_id[ignored]["archived_at"] == "2026-02-19T09:00:00+00:00"
    assert "archived_by" not in by_id[kept] and by_id[kept]["status"] == "active"
    table = tether(repo, "search", "flush").stdout
    assert ignored in table and "archived by disuse" in table

    hits = tether(repo, "recall", "--file", "src/app.py", "--json").json()["results"]
    assert [hit["id"] for hit in hits] == [kept]

    assert tether(repo, "restore", ignored).code == 0
    again = {e["id"]: e for e in tether(repo, "search", "session store", "--json").json()}
    assert "archived_by" not in again[ignored] and again[ignored]["status"] == "active"
