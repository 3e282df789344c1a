"""When the pre-edit hook's full guard check fails (here: a damaged page of the index's table of
guards let past), its plain fallback still asks about every guard of the file, and about a
memory on a reused earlier name only when recall would follow it (written before the name was
taken again). The real hook command, a real repository and index."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from recall.hooks import LOG_NAME
from recall.locations import project_location

from .test_reused_names import name_taken_again, pre_edit


def _damage(index: Path, table: str) -> None:
    """Overwrite the root page of ``table`` in the index file with bytes SQLite cannot read."""
    with closing(sqlite3.connect(index)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file itself
        size = db.execute("PRAGMA page_size").fetchone()[0]
        (page,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()
    with open(index, "r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(b"\xff" * size)


def test_the_fallback_asks_only_about_memories_meant_for_the_renamed_file(
    tmp_path: Path, cli: Any
) -> None:
    repo, before, after = name_taken_again(tmp_path, cli)
    assert after in pre_edit(cli, repo, "util.py")  # the guard tables exist from here on

    location = project_location(repo)
    _damage(location.index_path, "guard_allowed")
    asked = pre_edit(cli, repo, "legacy.py")
    log = (location.base / LOG_NAME).read_text(encoding="utf-8")
    assert "the guard check of legacy.py failed" in log  # the fallback answered
    assert f"[{before}] covers legacy.py (renamed from util.py)" in asked
    assert after not in asked


def test_a_check_failing_before_the_earlier_names_are_read_still_follows_the_rename(
    tmp_path: Path, cli: Any
) -> None:
    # the first read of the check (the memories disuse hid) fails: the fallback reads the
    # file's earlier names itself, dated as ever
    repo, before, after = name_taken_again(tmp_path, cli)

    location = project_location(repo)
    _damage(location.index_path, "usage")
    asked = pre_edit(cli, repo, "legacy.py")
    log = (location.base / LOG_NAME).read_text(encoding="utf-8")
    assert "the guard check of legacy.py failed" in log
    assert f"[{before}] covers legacy.py (renamed from util.py)" in asked
    assert after not in asked
