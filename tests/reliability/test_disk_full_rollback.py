"""A write of the per-user tables that runs out of room says so, instead of hiding it.

On a full disk SQLite rolls the whole transaction back itself when a statement cannot spill
its pages to the -wal file; a second ``ROLLBACK`` then fails with "cannot rollback - no
transaction is active", and that error, not the full disk, is what the user would be told
about (with advice to reindex rather than to free space). Each bulk transaction over the
per-user tables is run here in a child process whose ``RLIMIT_FSIZE`` stops the -wal file
from growing (``SIGXFSZ`` ignored, so writes fail with ``EFBIG``), with a page cache small
enough that the statement spills mid-way: the error that comes out must be the full disk's,
and the connection must be left out of any transaction and usable.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROWS = 20_000
"""Enough rows that one statement dirties far more pages than the cache holds."""

CHILD = """
import json, resource, signal, sqlite3, sys
from datetime import UTC, datetime
from pathlib import Path

from recall.ranking.embedding import load_embedder
from recall.index import db, keep
from recall.lifecycle.disuse import archive_ignored
from recall.ranking import vectors
from recall.settings import EngineSettings

which, rows = sys.argv[1], int(sys.argv[2])
old = Path("old.db")
conn, _ = db.open_checked(old)
conn.execute("BEGIN IMMEDIATE")
conn.executemany(
    "INSERT INTO memories(id, name, category, summary, details, files, pinned, status, "
    "created, author, source, content_hash, mtime_ns, size, file_sha) "
    "VALUES(?1, ?1 || '.md', 'gotcha', 'summary ' || ?1, 'details', '[]', 0, 'active', "
    "'2026-01-01T00:00:00+00:00', '', 'user', ?1, 0, 0, '')",
    [(f"{n:08x}",) for n in range(rows)],
)
conn.executemany(
    "INSERT INTO usage(memory_id, surfaced, first_surfaced) "
    "VALUES(?, 9, '2026-01-01T00:00:00+00:00')",
    [(f"{n:08x}",) for n in range(rows)],
)
conn.execute("COMMIT")
conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
if which == "keep":
    kept = keep.save(old, Path("memories")).tables
    conn.close()
    conn, _ = db.open_checked(Path("new.db"))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    run = lambda: keep.restore(conn, kept)
elif which == "disuse":
    moment = datetime(2026, 6, 1, tzinfo=UTC)
    run = lambda: archive_ignored(conn, EngineSettings(), moment)
else:
    run = lambda: vectors.backfill(conn, load_embedder(None))
conn.execute("PRAGMA cache_size = 10")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
try:
    run()
    error = None
except sqlite3.Error as failure:
    error = failure
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
usable = conn.execute("SELECT count(*) FROM usage").fetchone()[0]
print(json.dumps({
    "error": None if error is None else str(error),
    "full": error is not None and db.is_full_error(error),
    "in_transaction": conn.in_transaction,
    "usage_rows": usable,
}))
"""


@pytest.mark.parametrize("which", ["keep", "disuse", "vectors"])
def test_a_full_disk_is_reported_as_such(tmp_path: Path, which: str) -> None:
    """``keep`` copies the per-user tables into a rebuilt index, ``disuse`` archives many
    memories at a session start, ``vectors`` back-fills the semantic vectors."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(ROWS)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    print(f"\n[full -wal, {which}] {outcome}")
    assert outcome["error"] is not None, "the write fitted: raise ROWS or lower the limit"
    assert "cannot rollback" not in outcome["error"]
    assert outcome["full"], outcome["error"]
    assert not outcome["in_transaction"]
    assert outcome["usage_rows"] == (0 if which == "keep" else ROWS)  # nothing half-written
