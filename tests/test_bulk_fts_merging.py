"""A bulk write turns off the full-text tables' merging of segments while its rows go in, and
sets it back before it commits (or its rollback does): the tables are left as configured."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

from recall.index import rows

LINES = "".join(
    json.dumps({"summary": f"note {n} on parsing", "category": "context", "files": ["src/app.py"]})
    + "\n"
    for n in range(40)
)


def automerge(repo: Path) -> dict[str, str | None]:
    conn = sqlite3.connect(repo / ".tether" / "index.db")
    try:
        return {
            table: (
                found[0]
                if (
                    found := conn.execute(
                        f"SELECT v FROM {table}_config WHERE k = 'automerge'"
                    ).fetchone()
                )
                else None
            )
            for table in ("fts_words", "fts_trigram")
        }
    finally:
        conn.close()


def test_the_default_is_pinned() -> None:
    assert rows.FTS5_AUTOMERGE_DEFAULT == 4


def test_a_bulk_import_leaves_the_merging_on(repo: Path, cli: Callable[..., CliResult]) -> None:
    done = cli("import", "-", stdin=LINES)
    assert done.code == 0, done.stderr
    on = automerge(repo)  # FTS5's default (none set) or set back to it
    assert set(on.values()) <= {None, rows.FTS5_AUTOMERGE_DEFAULT}, on
    hits = cli("search", "parsing", "--limit", "50", "--json").json()
    assert len(hits) == 40


def test_a_table_given_another_value_gets_it_back(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    assert cli("list").code in (0, 1)  # the index made
    conn = sqlite3.connect(repo / ".tether" / "index.db")
    conn.execute("INSERT INTO fts_trigram(fts_trigram, rank) VALUES('automerge', 8)")
    conn.commit()
    conn.close()
    done = cli("import", "-", stdin=LINES)
    assert done.code == 0, done.stderr
    on = automerge(repo)
    assert on["fts_trigram"] == 8 and on["fts_words"] in (None, rows.FTS5_AUTOMERGE_DEFAULT)
