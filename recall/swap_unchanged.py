"""Renaming a rewritten file into place only while the file it replaces still holds the bytes
the rewrite was made from: a compare-and-swap as far as a POSIX file system allows one.

A rename is not conditional: another writer that replaces the name (an editor's rename-over
save) between the last look and the rename is lost, a window of two system calls. A writer
that writes into the file itself (an append, an editor that saves in place) is seen even
inside that window: the file replaced is read again after the rename, through the descriptor
the look opened, and :func:`swap_if_unchanged` gives back what it holds then.
"""

from __future__ import annotations

import os
from pathlib import Path


class FileChanged(Exception):
    """The file is no longer what a rewrite was made from; it was not replaced. Read it again
    and redo the rewrite."""


def contents(fd: int, limit: int) -> bytes:
    """The bytes of the open file ``fd`` from its start, ``limit`` of them at most (the file's
    position is left as it was)."""
    parts: list[bytes] = []
    got = 0
    while got < limit:
        part = os.pread(fd, limit - got, got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def swap_if_unchanged(temp: Path, target: Path, expected: bytes, limit: int) -> bytes | None:
    """Rename ``temp`` over ``target`` if ``target`` is still the file holding ``expected``,
    else raise :class:`FileChanged` (``temp`` is left for the caller to remove).

    None when the file replaced kept ``expected`` to the end; else what it holds after the
    rename (``limit`` bytes at most): another process wrote into it while it was replaced,
    and that text is now in no file but this answer.
    """
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise FileChanged from None
    try:
        # one byte more than expected tells a file that grew
        if contents(fd, len(expected) + 1) != expected:
            raise FileChanged
        held, named = os.fstat(fd), os.lstat(target)
        if (held.st_dev, held.st_ino) != (named.st_dev, named.st_ino):
            raise FileChanged  # replaced under its name since it was opened
        os.replace(temp, target)
        after = contents(fd, max(limit, len(expected) + 1))
        return None if after == expected else after
    finally:
        os.close(fd)
