"""Renames only staged (``git mv`` not committed yet), which the pre-edit hook follows as it
follows the committed ones: the file it renamed keeps its guards and gotchas before the commit.

Git's history knows nothing of them, so they are asked of git's index: one ``git diff --cached
-M --name-status`` (the commit the genome last read against the index: HEAD once the hook has
caught the history up, as ``git status`` shows the rename; an older commit when the hook left
the history behind, after an amended or rebased commit, a branch that forked earlier, or a long
pull, so that the renames those commits made are followed too), and only for an
edited file that can be such a rename's target: a file on disk that HEAD's tree, as the genome
indexed it, does not hold under its name. The genome holds it when an indexed commit knows the
file by that name (``genome_files``, rows under each file's latest committed name, a deleted
file's too), the last refresh listed it (``genome_tree``: git's index and the untracked files),
and that refresh did not find it staged as an addition against HEAD
(:mod:`recall.genome.index_added`): so a rename staged onto a name an earlier commit deleted is
followed, before a refresh and after one that ran while it was staged. An edit of a file HEAD
holds, the usual edit, runs no git: one indexed look-up. A file never committed (new, or renamed
and not committed) pays the git call on each edit until its commit. A never indexed genome
knows no files: then nothing is asked, as its committed renames are not followed either.

A staged rename gives the file the names its commit will: the name it had at HEAD and that
name's earlier ones, not those of a file that had the new name before (deleted since), as the
history follows only the last rename into a name back from it.
"""

from __future__ import annotations

import math
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.file_names import EarlierName, earlier_dated
from recall.genome.index_added import INDEX_ADDED

if TYPE_CHECKING:
    from recall.store import MemoryStore

GIT_TIMEOUT_S: Final = 5
"""How long the hook waits for git's answer (a rename detection over the staged changes only:
milliseconds, but a hook must answer within the agent's hook timeout whatever git does)."""


def _held_at_head(conn: sqlite3.Connection, path: str) -> bool | None:
    """Whether HEAD's tree holds ``path``, as the genome last indexed it: an indexed commit
    knows the file by that name, the last refresh listed it, and not as an addition staged
    against HEAD (:mod:`recall.genome.index_added`). None when the index holds no genome yet."""
    try:
        row = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM genome_files WHERE path = :path)"
            " AND EXISTS (SELECT 1 FROM genome_tree WHERE path = :path)"
            " AND NOT EXISTS (SELECT 1 FROM json_each("
            "(SELECT value FROM genome_state WHERE key = :added)) WHERE value = :path)",
            {"path": path, "added": INDEX_ADDED},
        ).fetchone()
    except sqlite3.OperationalError:  # no genome tables (never indexed)
        return None
    return bool(row[0])


def _indexed_head(conn: sqlite3.Connection) -> str | None:
    """The commit the genome's history was last read at, or None (never indexed)."""
    try:
        row = conn.execute("SELECT value FROM genome_state WHERE key = 'head'").fetchone()
    except sqlite3.OperationalError:  # no genome tables (never indexed)
        return None
    return str(row[0]) if row and row[0] else None


def _renames_against(root: Path, base: str) -> bytes | None:
    """``git diff --cached -M`` of commit ``base`` against git's index, or None (git failed:
    no such commit any more, no commit yet)."""
    from recall.gitquery import git_stdout

    args = ["diff", "--cached", "-M", "--name-status", "-z", "--relative", base, "--"]
    return git_stdout(root, *args, timeout=GIT_TIMEOUT_S)


def staged_source(root: Path, path: str, since: str | None = None) -> str | None:
    """The name commit ``since`` (HEAD when None, or when git no longer has it) has for the
    file that git's index has renamed to ``path`` (paths relative to ``root``), or None: no
    such rename, no commit yet, or git cannot say."""
    out = _renames_against(root, since) if since else None
    if out is None:
        out = _renames_against(root, "HEAD")
    if not out:
        return None
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    at = 0
    while at < len(fields) and fields[at]:
        status = fields[at]
        if status[:1] in ("R", "C"):  # a rename (or copy) names the old path, then the new
            old, new = fields[at + 1 : at + 3]
            if status[0] == "R" and new == path:
                return old
            at += 3
        else:
            at += 2
    return None


def staged_earlier(project: MemoryStore, path: str) -> list[EarlierName] | None:
    """The earlier names of ``path`` through a rename staged into it, as its commit will give
    them (or made by commits the genome has not read): the name it had at the commit the genome
    last read (any memory naming it follows while no file has it again: it was left just now),
    then that name's own earlier names as the genome dates them. None when
    no rename is staged into it, or HEAD's tree holds ``path`` as the genome indexed it (no git
    run then): the caller keeps the names the history gives ``path``."""
    root = project.repo_root
    if root is None or not (root / path).is_file():
        return None
    conn = project.conn
    if _held_at_head(conn, path) is not False:
        return None
    old = staged_source(root, path, _indexed_head(conn))
    if old is None or old == path:
        return None

    def is_file(name: str) -> bool:
        return (root / name).is_file()

    seen = {path}
    found: list[EarlierName] = []
    left = EarlierName(old, time.time() if is_file(old) else math.inf)
    for name in (left, *earlier_dated(conn, old, is_file)):
        if name.name not in seen:
            seen.add(name.name)
            found.append(name)
    return found
