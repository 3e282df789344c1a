"""The user's global store is private: its folder and every file in it readable by the owner only.

Global memories are personal notes that may name any repository the user works on, and its
index holds what they looked at and when; other accounts on the machine have no business
reading either. New folders and files are created owner-only (the store passes these modes
on); a folder made before, or loosened since, is reported by ``tether doctor`` with the
command that fixes it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Final

from recall.display import plural
from recall.locations import Location

DIR_MODE: Final = 0o700
"""Owner may list, enter and create; nobody else may do anything."""
FILE_MODE: Final = 0o600
"""Owner may read and write; nobody else may read."""
_OTHERS: Final = stat.S_IRWXG | stat.S_IRWXO


def create_private(path: Path) -> None:
    """Create an empty owner-only file at ``path`` unless it exists (so that SQLite, which
    gives its -wal and -shm files the permissions of the database file, keeps them private).

    An existing file is never opened here: closing a descriptor of a database drops every
    POSIX lock this process holds on it, including those of SQLite connections still open.
    """
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


def too_open(location: Location) -> list[Path]:
    """The folders and files of a store that group or others may access, base first."""
    base = location.base
    if not base.is_dir():
        return []
    found: list[Path] = []
    for folder, dirs, files in os.walk(base):
        here = Path(folder)
        for path in (here, *(here / name for name in files)):
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if mode & _OTHERS and not stat.S_ISLNK(mode):
                found.append(path)
        dirs.sort()
    return found


def warning(location: Location) -> str | None:
    """What ``tether doctor`` says about a store readable by others, or None when it is not."""
    loose = too_open(location)
    if not loose:
        return None
    first = ", ".join(str(p) for p in loose[:3]) + (" …" if len(loose) > 3 else "")
    return (
        f"the global store {location.base} can be read by other users "
        f"({plural(len(loose), 'path')}: {first}); make it private with "
        f"`chmod -R go-rwx {location.base}`"
    )
