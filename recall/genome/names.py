"""File names the genome can keep, which of them are Tether's own or git's, which lie in
submodules, and how a file a sparse checkout leaves out is kept.

Git allows any bytes in a name, a memory only valid UTF-8. Tether's own folder holds the memory
files (and their settings) a team commits along with the code: files of the repository, but
not of the project, so no co-change signal comes from them.
"""

from __future__ import annotations

import json
import sqlite3

from recall.repo import TETHER_DIR
from recall.submodule_names import SUBMODULES_STATE, submodule_of

OWN_FOLDER = f"{TETHER_DIR}/"
"""The prefix of the paths under Tether's own folder (memory files, settings)."""

NOT_CHECKED_OUT = "not checked out"
"""The skip reason a file of git's index that a sparse checkout leaves out of the working tree
is kept with: a file of the repository all the same (for co-change, fan-in and whether a memory
names a file that is gone), whose imports and symbols cannot be read without its content."""


def not_checked_out(conn: sqlite3.Connection, path: str) -> bool:
    """Whether the last refresh in the index ``conn`` listed ``path`` as a file a sparse
    checkout leaves out of the working tree (one indexed look-up; False before any refresh)."""
    try:
        row = conn.execute(
            "SELECT 1 FROM genome_tree WHERE path = ? AND skip = ?", (path, NOT_CHECKED_OUT)
        ).fetchone()
    except sqlite3.OperationalError:  # no genome tables (yet)
        return False
    return row is not None


def is_utf8(text: str) -> bool:
    """Tell whether ``text`` (decoded with surrogate escapes) was valid UTF-8."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_own(path: str) -> bool:
    """Tell whether ``path`` lies under Tether's own folder."""
    return path.startswith(OWN_FOLDER)


def is_git_own(path: str) -> bool:
    """Whether ``path`` (relative to the repository root) is one of git's own files."""
    return path == ".git" or path.startswith(".git/")


def submodules_state(gitlinks: list[str]) -> dict[str, str]:
    """The bookkeeping that lists the submodules' folders ``gitlinks`` (none: nothing)."""
    return {SUBMODULES_STATE: json.dumps(sorted(gitlinks))} if gitlinks else {}


def in_submodule(path: str, state: dict[str, str]) -> bool:
    """Whether ``path`` lies in the work tree of a submodule the bookkeeping ``state`` lists."""
    return submodule_of(path, submodule_folders(state)) is not None


def submodule_folders(state: dict[str, str]) -> list[str]:
    """The submodules' folders the bookkeeping ``state`` lists."""
    listed = state.get(SUBMODULES_STATE)
    return json.loads(listed) if listed else []


UNNAMED_SHOWN = 3
"""How many names that are not UTF-8 a refresh's notice spells out: enough to find the files,
few enough that a tree of thousands of such names still gets a one-line notice."""


def unnamed_notice(names: list[str]) -> str:
    """The notice that the files ``names`` (not UTF-8, decoded with surrogate escapes) were
    left out of the genome, each shown with its bytes as git has them."""
    shown = ", ".join(repr(n.encode("utf-8", "surrogateescape"))[1:] for n in names[:UNNAMED_SHOWN])
    more = f" and {len(names) - UNNAMED_SHOWN} more" if len(names) > UNNAMED_SHOWN else ""
    files = "file name is" if len(names) == 1 else "file names are"
    return (
        f"{len(names)} {files} not valid UTF-8 ({shown}{more}): left out of the code map, as "
        "no memory can name them; rename them to tie memories to them"
    )
