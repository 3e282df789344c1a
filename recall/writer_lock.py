"""The writers' lock of a store: an flock on a file beside its memories, so a killed holder
releases it at once."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from recall.errors import StoreBusy, StoreUnavailable
from recall.memfiles import describe_os_error


@contextlib.contextmanager
def writer_lock(
    lock_path: Path, *, required: bool = True, mode: int = 0o644, wait: float | None = None
) -> Iterator[None]:
    """Hold the store's writer lock (an flock, so a killed holder releases it at once).

    With ``required`` False, a lock file that cannot be created (a read-only store, where
    nobody can write) means no lock is needed, and the body runs without one. With ``wait``
    (seconds), another holder is waited for that long at most, then :class:`StoreBusy`.
    """
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, mode)
    except OSError as error:
        if not required:
            yield
            return
        raise StoreUnavailable(describe_os_error(error, lock_path)) from None
    try:
        _flock(fd, lock_path, wait)
    except BaseException:
        os.close(fd)
        raise
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


_LOCK_POLL = 0.02
"""Seconds between two tries of a writer lock waited for with a bound."""


def writer_lock_held(lock_path: Path) -> bool:
    """Whether another holder has the store's writer lock right now (one try, never a wait;
    a lock file that does not exist yet is held by nobody). Nothing is created."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # closing the descriptor lets it go
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _flock(fd: int, lock_path: Path, wait: float | None) -> None:
    """Take the exclusive lock on ``fd``: at once or blocking when ``wait`` is None, else
    trying until ``wait`` seconds have passed."""
    if wait is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    import time

    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise StoreBusy(f"{lock_path} is held by another writer") from None
            time.sleep(_LOCK_POLL)
