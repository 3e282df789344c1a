"""The names git's index holds and HEAD's tree does not, as the last refresh saw them, kept for
the pre-edit hook (:mod:`recall.hooks.staged_renames`).

The tree a refresh lists (``genome_tree``) is git's index and the untracked files, not HEAD's
tree: a rename staged while a refresh runs puts its new name there. A name an earlier commit
deleted is known to the history too (``genome_files`` keeps a deleted file's row under its last
name), so a rename staged onto such a name looks, to the genome alone, like a file HEAD holds.
The refresh asks git for the additions staged against HEAD (one ``git diff --cached``) and keeps
those whose name the history knows, the only ones the hook could take for a file at HEAD: in
the genome's bookkeeping, under :data:`INDEX_ADDED`, as a JSON list (usually none: no key).
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # the hook reads the key without loading the refresh's git runner
    from recall.genome.gitcmd import GitRunner

INDEX_ADDED: Final = "index_added"
"""The genome state key of the names staged as additions against HEAD that the history knows."""


def added_in_index(runner: GitRunner, head: str | None) -> list[str] | None:
    """The names git's index adds to HEAD's tree (a staged rename's new name among them), relative
    to the runner's directory; none before the first commit, None when git cannot say."""
    if head is None:
        return []
    args = ["diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=A"]
    status, out, _ = runner.run([*args, "--relative", head, "--"], check=False)
    if status != 0:
        return None
    return [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def record_index_added(
    conn: sqlite3.Connection, state: dict[str, str], added: list[str] | None
) -> None:
    """Put in ``state`` the names of ``added`` the history in ``conn`` knows (read after the
    history is written, in the refresh's transaction); no key when there are none. Unknown
    (``added`` None) counts as none: the hook then asks git only of names no commit knows."""
    if not added:
        return
    rows = conn.execute(
        "SELECT path FROM genome_files WHERE path IN (SELECT value FROM json_each(?))",
        (json.dumps(added),),
    )
    known = sorted(row[0] for row in rows)
    if known:
        state[INDEX_ADDED] = json.dumps(known)
