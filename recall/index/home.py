"""Telling an index Tether made in its place from one that came with the repository.

The index is derived and per user, and Tether reads what it holds as its own: a memory's row is
kept while its file's checksum still matches, so the summary, details, author and files in that
row are what every surface shows and what agents are given. A repository can carry an index too
(``git add -f`` past the store's ``.gitignore``, or an archive unpacked with it): its rows could
then say anything of the memory files beside it, and triggers in it would rewrite every memory
written later, all out of sight of anyone reading the files.

So an index records, when it is created, the inode of its file (:data:`HOME_KEY`): a file a
clone, a checkout or an unpacking writes has an inode of its own, which whoever made the file
could not know. An index whose file is not the one it was created as (or made before this was
recorded) is not used: it is rebuilt from the memory files. Its per-user tables (counts, sessions,
hint state, disuse archives) are not carried into the rebuild either, as they steer recall too;
only one that records nothing and lists the memory folder beside it, an earlier version's index
in place, keeps them (:mod:`recall.index.keep`). A rebuilt index is built beside the old one and
renamed into place, which keeps its inode; a repository copied elsewhere (``cp -r``, a backup
restored) is rebuilt once, its counts starting afresh.
"""

from __future__ import annotations

import sqlite3
from typing import Final

HOME_KEY: Final = "file_inode"
"""The ``meta`` key holding the inode of the file the index was created as."""

NOT_MADE_HERE: Final = (
    "it was not made here: it came with the repository or was copied from elsewhere, and what "
    "it holds is not taken for what the memory files say"
)
"""Why an index whose file is not the one it was created as is not used (the rebuild's notice)."""

UNMARKED: Final = (
    "it does not say it was made here: an earlier version of Tether made it, or it came with "
    "the repository"
)
"""Why an index that records no file at all is not used (one made before the record was kept)."""


def record_home(conn: sqlite3.Connection) -> None:
    """Record the inode of the file ``conn`` opened (see :class:`recall.index.db.IndexConnection`)
    in its ``meta`` table, inside the caller's transaction; nothing for an index in memory."""
    identity = getattr(conn, "identity", None)
    if identity is not None:
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (HOME_KEY, str(identity[1]))
        )


def foreign(conn: sqlite3.Connection, identity: tuple[int, int] | None) -> str | None:
    """Why the index read through ``conn`` may not be used, it not having been created as its
    file, of ``identity`` (device, inode); None when it was, or ``identity`` is None (no file)."""
    if identity is None:
        return None
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (HOME_KEY,)).fetchone()
    if found is None:
        return UNMARKED
    return None if found[0] == str(identity[1]) else NOT_MADE_HERE
