"""Making a batch of file writes durable at once: the memory folder's filesystem, not every
filesystem of the machine."""

from __future__ import annotations

import os
import sys


def sync_filesystem(folder: str | os.PathLike[str]) -> None:
    """Write to disk everything cached for the filesystem holding ``folder``.

    On Linux this is ``syncfs``: one call for a whole batch of files, which waits only for this
    filesystem (a plain ``sync`` also waits for every other one, a USB stick being filled or a
    network mount included). Elsewhere, or if ``syncfs`` fails, every filesystem is synced."""
    if sys.platform.startswith("linux") and _syncfs(folder):
        return
    os.sync()


def _syncfs(folder: str | os.PathLike[str]) -> bool:
    """Call ``syncfs`` on ``folder``'s filesystem; tell whether it was done."""
    import ctypes  # only a batch write pays for it

    try:
        call = ctypes.CDLL(None, use_errno=True).syncfs
    except (AttributeError, OSError):
        return False
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return call(fd) == 0
    finally:
        os.close(fd)
