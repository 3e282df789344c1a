"""The genome's history brought up to HEAD for the readers of git's renames outside recall.

Recall refreshes a stale genome before it ranks (:func:`recall.repo_signals.open_repo_signals`).
The edit hooks' guards, ``list --file``, ``remember``'s note on a renamed file and ``tether
check`` read the rename table straight from the index (:mod:`recall.file_names`): without this,
a rename committed since the last refresh stayed unseen until something else refreshed the
genome, and an edit of the renamed file got past the guard on its old name.

Whether the history lags is read from a few files under ``.git`` and the genome's bookkeeping
(no git process, none of the genome's queries loaded); only a lagging history is read, by a
refresh that leaves the symbol index for ``tether index`` and the language server, as a
short-lived recall's does. Git's own index does not count here (the history is the same
whatever is staged), nor do lagging symbols: renames come from the commits alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.genome.headref import find_git_dir, read_head
from recall.genome.limits import MAX_COMMIT_FILES
from recall.genome.schema import read_state, schema_current

if TYPE_CHECKING:
    from recall.store import MemoryStore

BEHIND: Final = "behind"
"""HEAD moved since the last refresh: the commits since are read (a rewritten history
is read whole)."""
GIT_STEP_TIMEOUT_S: Final = 5
"""How long an edit hook waits for git to say how far HEAD moved (milliseconds, normally)."""
HOOK_STEP_MOST: Final = 500
"""Commits an edit hook reads to bring the history up to HEAD (a few hundred take a fraction of
a second); more (a pull, a branch far ahead) are left to the next recall or ``tether index``
rather than read inside an agent's edit, whose hook has a timeout."""
UNBUILT: Final = "unbuilt"
"""No history to add to: never indexed, tables of another version or settings, a repository
that went away or came back: the whole history is read."""


def history_lag(root: Path | None, conn: sqlite3.Connection) -> str | None:
    """How the genome's history in ``conn`` lags the repository at ``root``: :data:`BEHIND`,
    :data:`UNBUILT`, or None when it is as of HEAD (or there is no repository folder). What
    :meth:`recall.genome.Genome.is_stale` checks, but for git's index and the symbols."""
    if root is None:
        return None
    if not schema_current(conn):
        return UNBUILT
    state = read_state(conn)
    if not state or state.get("max_commit_files") != str(MAX_COMMIT_FILES):
        return UNBUILT
    if state.get("mode") == "unavailable":
        return UNBUILT if find_git_dir(root) is not None else None
    current = read_head(root)
    if current is None:
        return UNBUILT
    return BEHIND if (current.head or "") != state.get("head", "") else None


def catch_up(store: MemoryStore, *, notice: Callable[[str], None], rebuild: bool = True) -> bool:
    """Bring the history in ``store``'s index up to HEAD when it lags; tell whether it is as
    of HEAD now. Without ``rebuild`` (an edit hook) only the commits since the last refresh
    are read: a genome never built, or whose history was rewritten, is left as it is for the
    next recall or ``tether index``, and its renames are read as they were.

    Another process holding the index past the store's wait, or an index that cannot be
    written, leaves the history as it was, said to ``notice``; so are the refresh's own notes
    (a shallow clone, a rewritten history). The user's global store belongs to no repository
    (it is opened from whichever one the command runs in): it holds no genome, ever."""
    from recall.locations import GLOBAL

    root = store.repo_root
    if not store.exists or root is None or store.scope == GLOBAL:
        return True  # no index to hold a genome: nothing to catch up
    conn = store.conn
    lag = history_lag(root, conn)
    if lag is None:
        return True
    if not rebuild and (lag == UNBUILT or not _short_step(root, conn)):
        return False
    from recall.genome.refresh import DEFERRED, Refresh
    from recall.index import db

    try:
        summary = Refresh(root, conn, MAX_COMMIT_FILES, symbols=False, rebuild=rebuild).run(
            False, None
        )
    except sqlite3.OperationalError as error:
        if not (db.is_busy(error) or db.is_read_only_error(error)):
            raise
        notice(
            f"git's renames were not brought up to date ({error}): the renames are read as "
            "the index last recorded them (`tether index` catches up)"
        )
        return False
    for line in summary.notices:
        notice(line)
    return summary.mode not in (DEFERRED, "failed")


def _short_step(root: Path, conn: sqlite3.Connection) -> bool:
    """Whether HEAD is at most :data:`HOOK_STEP_MOST` commits ahead of the commit the history
    was last read at, that commit among its ancestors: what an edit hook reads. A branch
    checked out that forked earlier would have the refresh list the whole tree and then
    find it must read the history anew (which a hook never does), at every edit."""
    from recall.gitquery import git_stdout

    last = read_state(conn).get("head", "")
    current = read_head(root)
    head = current.head if current is not None else None
    if not last or not head:
        return False
    timeout = GIT_STEP_TIMEOUT_S
    if git_stdout(root, "merge-base", "--is-ancestor", last, head, timeout=timeout) is None:
        return False
    out = git_stdout(
        root, "rev-list", "--count", f"--max-count={HOOK_STEP_MOST + 1}", f"{last}..{head}",
        timeout=timeout,
    )  # fmt: skip
    return out is not None and int(out.strip() or 0) <= HOOK_STEP_MOST
