"""A damaged index found when a command opens the store is rebuilt from the memory files, and,
as ``tether reindex`` does, keeps the code map (the genome: history, renames, symbols) when it
can be read, and says on stderr that it was left behind, with ``tether index`` to read it again,
when the damage is in it. Through the real CLI, in a real repository."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.conftest import run_tether
from tests.test_reindex_code_map import LEFT_BEHIND, acted, code_map, index_mode, index_of, lived_in


def damage(root: Path, *tables: str) -> None:
    """Overwrite the root page of each of ``tables`` in the index of ``root``, in place (the
    file stays the one the index was made as)."""
    conn = sqlite3.connect(index_of(root))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [
            conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[
                0
            ]
            for table in tables
        ]
    finally:
        conn.close()
    with index_of(root).open("r+b") as index:
        for page in pages:
            index.seek((page - 1) * page_size)
            index.write(b"\xa5" * page_size)


def test_a_recovery_from_damage_keeps_the_code_map_and_the_counts(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    memory = lived_in(root)
    before = code_map(root)
    damage(root, "memories")
    done = run_tether("list", "--json", cwd=root)
    assert done.code == 0, done.stderr
    assert [m["id"] for m in done.json()] == [memory]
    assert f"index {index_of(root)} was unusable" in done.stderr
    assert "code map" not in done.stderr
    assert code_map(root) == before
    assert acted(root, memory) == 1
    assert index_mode(root) == ("unchanged", 0)  # nothing of the history read again


def test_a_recovery_from_damage_in_the_code_map_says_it_was_left_behind(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    memory = lived_in(root)
    damage(root, "memories", "genome_symbols")
    done = run_tether("list", "--json", cwd=root)
    assert done.code == 0, done.stderr
    assert [m["id"] for m in done.json()] == [memory]
    said = [line for line in done.stderr.splitlines() if "unusable" in line]
    assert len(said) == 1
    assert str(index_of(root)) in said[0]
    assert (
        f"rebuilding it from the memory files without its {LEFT_BEHIND}: it could not be read"
        in (said[0])
    )
    assert acted(root, memory) == 1  # damage to the code map costs only the code map
    assert index_mode(root)[0] == "full"
