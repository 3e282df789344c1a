"""What a path of the working tree is on disk, asked of ``stat`` alone: a file or a folder, or
one that is neither (a named pipe, a socket, a device), which is never opened: a named pipe
would block its reader until something writes to it."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def special_kind(path: Path) -> str | None:
    """What ``path`` is when it is on disk as neither a file nor a folder (a link is followed):
    ``a named pipe``, ``a socket``, ``a device``; None for a file, a folder or nothing there."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file"


def in_tree(root: Path, path: str) -> bool:
    """Whether ``path`` (relative to ``root``) is on disk as a file or a folder (a link is
    followed): a named pipe, a socket or a device in a file's place is no file of the working
    tree."""
    try:
        mode = os.stat(root / path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)
