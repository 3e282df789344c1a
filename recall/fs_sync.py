"""Making a batch of file writes durable at once: the memory folder's filesystem, not every
filesystem of the machine."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable


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


class SyncAhead:
    """A sync (``flush``) begun on a thread of its own, so the caller goes on with work that
    does not need it done; :meth:`wait` returns once it is, raising its failure there. Where no
    thread can be had, the sync is made at :meth:`wait` instead."""

    def __init__(self, flush: Callable[[], None]) -> None:
        """Begin ``flush`` now, on a thread of its own."""
        self._flush = flush
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = threading.Thread(
            target=self._run, name="tether-sync", daemon=True
        )
        try:
            self._thread.start()
        except RuntimeError:  # no thread to be had (a process limit): synced at wait()
            self._thread = None

    def _run(self) -> None:
        try:
            self._flush()
        except BaseException as error:  # raised in the caller's thread, at wait()
            self._error = error

    def wait(self) -> None:
        """Return once the sync is made; raise what it failed with."""
        if self._thread is None:
            self._flush()
            return
        self._thread.join()
        if self._error is not None:
            raise self._error
