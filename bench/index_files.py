"""The benchmarks' own index files: opened prepared, as a store opens its index, and copied as
the index of the copy (an index records the file it was created as, and a copy of it is a file
of its own, refused as one that came from elsewhere until it says so)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from recall.index.db import open_checked
from recall.index.home import HOME_KEY
from recall.index.sqlite_open import open_sqlite


def open_index(path: Path) -> sqlite3.Connection:
    """The index at ``path``, made (with every table of a store's index) when there is none."""
    conn, _created = open_checked(path)
    return conn


def copy_index(source: Path, target: Path) -> None:
    """Copy the index ``source`` (checkpointed: its log empty) to ``target`` and record the copy
    as the file it is, as an index made there records itself."""
    shutil.copyfile(source, target)
    conn = open_sqlite(target, isolation_level=None)
    try:
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = ?", (str(os.stat(target).st_ino), HOME_KEY)
        )
    finally:
        conn.close()
