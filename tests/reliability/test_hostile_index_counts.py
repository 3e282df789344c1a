"""An index that came with the repository carries none of its per-user tables into the rebuild.

The counts in them steer recall (a memory shown again and again and never acted on steps
aside, archived by disuse; a session that read memory on its own gets no more hints), so a
repository that commits an index with forged ones must not get them into its cloner's index,
neither as rows nor as table definitions. Each test publishes such a repository, clones it and
runs Tether there through the real CLI and hook entry points; the last one checks that an index
an earlier version made in place keeps its counts over the upgrade.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from recall.index.home import HOME_KEY
from recall.index.sync import RACY_WINDOW_NS
from tests.conftest import make_repo, run_tether
from tests.reliability.test_hostile_repo import hook, publish_and_clone

SUMMARY = "save through safeRename, never open(w) on the config"
NOT_CARRIED = "without the counts kept in it"


def index_of(root: Path) -> Path:
    """The project index of the repository at ``root``."""
    return root / ".tether" / "index.db"


def remember_gotcha(root: Path) -> str:
    """Write the gotcha on src/app.py through the CLI; return its id."""
    done = run_tether("remember", SUMMARY, "-c", "gotcha", "-f", "src/app.py", "--json", cwd=root)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def run_sql(root: Path, script: str) -> None:
    """Run ``script`` on the index of ``root`` as someone editing the file by hand would."""
    conn = sqlite3.connect(index_of(root))
    try:
        conn.executescript(script)
    finally:
        conn.close()


def step_aside(memory: str) -> str:
    """SQL giving ``memory`` the counts of one shown forty times, never acted on, and archived
    by disuse for it."""
    return (
        "INSERT OR REPLACE INTO usage(memory_id, surfaced, acted, first_surfaced, last_surfaced, "
        "archived_by_disuse, archived_at) VALUES("
        f"'{memory}', 40, 0, '2026-01-01T00:00:00Z', '2026-06-01T00:00:00Z', 1, "
        "'2026-06-01T00:00:00Z');"
    )


def keep_listing(root: Path) -> None:
    """Wait out the memory folder's change time and read, so that the index keeps its listing
    of the folder as it does for a folder left alone."""
    folder = root / ".tether" / "memories"
    settles = (folder.stat().st_ctime_ns + RACY_WINDOW_NS) / 1e9
    time.sleep(max(0.0, settles - time.time()) + 0.05)
    assert run_tether("list", cwd=root).code == 0
    conn = sqlite3.connect(index_of(root))
    try:
        kept = conn.execute("SELECT 1 FROM meta WHERE key = 'folder_listing'").fetchone()
    finally:
        conn.close()
    assert kept is not None


def usage_of(root: Path, memory: str) -> tuple[int, int] | None:
    """(surfaced, archived_by_disuse) of ``memory`` in the index of ``root``."""
    conn = sqlite3.connect(index_of(root))
    try:
        row = conn.execute(
            "SELECT surfaced, archived_by_disuse FROM usage WHERE memory_id = ?", (memory,)
        ).fetchone()
    finally:
        conn.close()
    return None if row is None else (row[0], row[1])


def assert_recalled(clone: Path) -> None:
    """The gotcha is what recall, inject and the prompt hook (of a session of its own) give,
    and not archived."""
    recalled = run_tether("recall", "-f", "src/app.py", cwd=clone)
    assert recalled.code == 0, recalled.stderr
    assert SUMMARY in recalled.stdout
    injected = run_tether("inject", "-f", "src/app.py", cwd=clone)
    assert SUMMARY in injected.stdout
    prompt = "how do I save the config in src/app.py"
    code, out = hook("prompt", clone, prompt=prompt, session_id="checking")
    assert code == 0
    assert SUMMARY in out
    archived = run_tether("list", "--status", "archived", cwd=clone)
    assert SUMMARY not in archived.stdout


@pytest.mark.parametrize("first", ["recall", "reindex"])
def test_a_committed_index_cannot_make_a_gotcha_step_aside(tmp_path: Path, first: str) -> None:
    """An index committed with counts that archive the gotcha by disuse: the clone's first
    command (a read that rebuilds it, or ``tether reindex``) leaves the counts behind, says so
    naming the index, and the gotcha is recalled, injected and given to the agent."""
    memory: list[str] = []

    def shape(root: Path) -> None:
        memory.append(remember_gotcha(root))
        run_sql(root, step_aside(memory[0]))

    clone = publish_and_clone(tmp_path, shape)
    done = run_tether(first, *(["-f", "src/app.py"] if first == "recall" else []), cwd=clone)
    assert done.code == 0, done.stderr
    assert f"index {index_of(clone)}" in done.stderr
    assert NOT_CARRIED in done.stderr
    assert "archives by disuse" in done.stderr
    assert usage_of(clone, memory[0]) in (None, (1, 0))  # only what this recall counted
    assert_recalled(clone)


def test_an_unmarked_index_from_the_repository_gives_no_counts_nor_tables(
    tmp_path: Path,
) -> None:
    """An index without the record of its file (as an earlier version made them), listing the
    publisher's own memory folder, with the gotcha archived, a hint table whose every new session
    has read memory on its own (no hints), and a touches table whose definition carries a second
    statement: none of it reaches the clone's index, and nothing of its SQL text is run."""
    memory: list[str] = []

    def shape(root: Path) -> None:
        memory.append(remember_gotcha(root))
        keep_listing(root)
        run_sql(
            root,
            f"DELETE FROM meta WHERE key = '{HOME_KEY}';"
            + step_aside(memory[0])
            + "DROP TABLE IF EXISTS hint_sessions;"
            "CREATE TABLE hint_sessions(session TEXT PRIMARY KEY, "
            "spent INTEGER NOT NULL DEFAULT 0, self_serve INTEGER NOT NULL DEFAULT 1, "
            "origin TEXT NOT NULL DEFAULT '', started TEXT NOT NULL, last_seen TEXT NOT NULL);"
            "DROP TABLE IF EXISTS hook_touches;"
            "CREATE TABLE hook_touches(session TEXT NOT NULL, path TEXT NOT NULL, "
            "turn INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(session, path));"
            "PRAGMA writable_schema = ON;"
            "UPDATE sqlite_master SET sql = sql || '; CREATE TRIGGER forge AFTER INSERT ON "
            "memories BEGIN UPDATE memories SET summary = ''FORGED'' WHERE rowid = new.rowid; "
            "END' WHERE name = 'hook_touches';",
        )

    clone = publish_and_clone(tmp_path, shape)
    code, out = hook("prompt", clone, prompt="how do I save the config in src/app.py")
    assert code == 0
    assert SUMMARY in out  # hints not silenced by the planted hint table
    log = (clone / ".tether" / "hooks.log").read_text(encoding="utf-8")
    assert NOT_CARRIED in log
    assert "nothing in it shows that it was made beside these memory files" in log
    conn = sqlite3.connect(index_of(clone))
    try:
        tables = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))
    finally:
        conn.close()
    assert "self_serve INTEGER NOT NULL DEFAULT 0" in tables["hint_sessions"]
    assert "forge" not in tables
    assert "FORGED" not in "".join(tables.values())
    assert usage_of(clone, memory[0]) != (40, 1)
    assert_recalled(clone)


def test_an_index_an_earlier_version_made_here_keeps_its_counts(tmp_path: Path) -> None:
    """The upgrade: an index without the record of its file, listing the memory folder beside
    it, is rebuilt once (said) with its counts carried over."""
    repo = make_repo(tmp_path / "repo")
    assert run_tether("init", cwd=repo).code == 0
    memory = remember_gotcha(repo)
    keep_listing(repo)
    for _ in range(3):
        assert run_tether("recall", "-f", "src/app.py", cwd=repo).code == 0
    assert usage_of(repo, memory) == (3, 0)
    run_sql(repo, f"DELETE FROM meta WHERE key = '{HOME_KEY}'")
    done = run_tether("recall", "-f", "src/app.py", cwd=repo)
    assert done.code == 0, done.stderr
    assert "does not say it was made here" in done.stderr  # rebuilt, once
    assert NOT_CARRIED not in done.stderr
    assert usage_of(repo, memory) == (4, 0)
    again = run_tether("recall", "-f", "src/app.py", cwd=repo)
    assert again.stderr == ""
