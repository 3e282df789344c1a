"""``tether reindex`` rebuilds the index from the memory files and keeps the code map (the
genome: history, renames, the tree, symbols), which comes from git and not from those files;
a code map it cannot carry (damaged, or in an index not made where it lies) is said, with
``tether index`` to read it again."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

from recall.genome.schema import SCHEMA_KEY, TABLES
from tests.conftest import CliResult, git, make_repo, run_tether

LEFT_BEHIND = "code map (git history, renames, symbols; `tether index` reads it again from git)"


def lived_in(root: Path) -> str:
    """A repository with a few commits (a rename among them), indexed, and a memory read
    once; the memory's id."""
    make_repo(root, {"src/app.py": "def serve():\n    return 1\n", "README.md": "# r\n"})
    for step in range(3):
        (root / "src" / f"part{step}.py").write_text(f"def part{step}():\n    return {step}\n")
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"part {step}")
    git(root, "mv", "src/part0.py", "src/first.py")
    git(root, "commit", "-qm", "rename")
    assert run_tether("index", cwd=root).code == 0
    done = run_tether(
        "remember", "serve() retries", "-c", "gotcha", "-f", "src/app.py", "--json", cwd=root
    )
    assert done.code == 0, done.stderr
    memory = str(done.json()["id"])
    assert run_tether("show", memory, cwd=root).code == 0  # acted on: a count to keep
    return memory


def index_of(root: Path) -> Path:
    """The project index of the repository at ``root``."""
    return root / ".tether" / "index.db"


def code_map(root: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every genome table, and the genome's schema version."""
    conn = sqlite3.connect(index_of(root))
    try:
        found = {table: sorted(conn.execute(f"SELECT * FROM {table}")) for table in TABLES}
        found["meta"] = conn.execute(
            "SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)
        ).fetchall()
    finally:
        conn.close()
    return found


def acted(root: Path, memory: str) -> int:
    """How often ``memory`` was acted on, as the index of ``root`` counts it."""
    conn = sqlite3.connect(index_of(root))
    try:
        row = conn.execute("SELECT acted FROM usage WHERE memory_id = ?", (memory,)).fetchone()
    finally:
        conn.close()
    return 0 if row is None else int(row[0])


def index_mode(root: Path) -> tuple[str, int]:
    """The mode of a ``tether index`` run in ``root`` and how many commits it read."""
    done = run_tether("index", "--json", cwd=root)
    assert done.code == 0, done.stderr
    return done.json()["mode"], done.json()["commits_read"]


def reindex(root: Path) -> CliResult:
    """``tether reindex`` in ``root``, checked to have read the one memory."""
    done = run_tether("reindex", cwd=root)
    assert done.code == 0, done.stderr
    assert done.stdout.startswith("Reindexed 1 memory")
    return done


def test_reindex_keeps_the_code_map_as_it_was(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    memory = lived_in(root)
    before = code_map(root)
    assert before["genome_symbols"] and before["genome_renames"] and before["genome_commits"]
    done = reindex(root)
    assert done.stderr == ""
    assert code_map(root) == before
    assert acted(root, memory) == 1
    assert index_mode(root) == ("unchanged", 0)  # nothing of the history read again


def test_a_damaged_code_map_is_left_behind_and_said_while_the_counts_are_kept(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    memory = lived_in(root)
    conn = sqlite3.connect(index_of(root))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        [(root_page,)] = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'genome_symbols'"
        ).fetchall()
    finally:
        conn.close()
    with index_of(root).open("r+b") as index:  # the symbols' page overwritten
        index.seek((root_page - 1) * page_size)
        index.write(b"\xa5" * page_size)
    done = reindex(root)
    assert f"rebuilt from the memory files without its {LEFT_BEHIND}: it could not be read" in (
        done.stderr
    )
    assert str(index_of(root)) in done.stderr
    assert acted(root, memory) == 1  # damage to the code map costs only the code map
    assert index_mode(root)[0] == "full"
    assert run_tether("list", cwd=root).stdout.count("serve() retries") == 1


def test_a_copied_index_keeps_neither_its_counts_nor_its_code_map_and_says_so(
    tmp_path: Path,
) -> None:
    memory = lived_in(tmp_path / "repo")
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "repo", copy, symlinks=True)
    done = reindex(copy)
    assert "without the counts kept in it" in done.stderr
    assert f"nor its {LEFT_BEHIND}: they are carried only from an index made where it lies" in (
        done.stderr
    )
    assert acted(copy, memory) == 0
    assert index_mode(copy)[0] == "full"


def test_reindex_before_any_index_says_nothing_of_a_code_map(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    assert cli("remember", "a note", "-c", "gotcha", "-f", "src/app.py").code == 0
    done = cli("reindex")
    assert done.code == 0
    assert "code map" not in done.stderr
