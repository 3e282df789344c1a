"""The project's memory folder looked at on the second core from the moment a one-shot command
starts, before its modules are imported.

``tether inject`` and ``tether hook EVENT`` run in a fresh process when no warm engine serves
them, and confirm their memory folder is as indexed with one ``lstat`` per memory file: at
30,000 memories about as long as the command's own imports. Those imports need nothing from the
folder, so :func:`begin` hands the look to a forked child as soon as the command knows its
project, and the first sync of that folder in the process (:func:`recall.index.sync.sync`)
takes the child's answer (:func:`take`) instead of making the stats itself: at once when it
confirms the folder, beside the ranking for an engine that asks for the verdict later.

The answer describes the folder as the command began, as a check made then would: a file
edited in place after that is seen by the next command. So it is taken only within
``EARLY_MAX_AGE_S`` of the look's start (a command that waited longer, for its standard input
or a busy index, checks afresh). The child sums the folder as a sync does
(:func:`recall.index.folder_sums.folder_sums`) and hands back the folder's own stamp with it,
taken before and after: an answer from a folder whose entries changed while it was looked at,
or since (a file added, removed or renamed, the folder replaced), never matches, and neither
does one whose folder changed too recently for its times to tell a later change
(:data:`recall.index.sync.RACY_WINDOW_NS`); the sync then checks the folder itself as before.
A folder whose ``.tether`` or ``memories`` is a link is not looked at here at all, nor a small
one, whose stats cost less than the fork. A look no sync took is stopped when the process
exits, so its child never holds the command's output open.
"""

from __future__ import annotations

import atexit
import os
import time
from stat import S_ISDIR

TYPE_CHECKING = False  # a hook on a small store imports nothing more than this module
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Final

    from recall.forked import Ahead

EARLY_MIN_FOLDER_BYTES: Final = 64 * 1024
"""Size of the memory folder's own directory entry from which it is looked at early: on ext4
and tmpfs about 3,000 memory files (the names of 11 characters take about 20 bytes each), where
the stats begin to cost more than forking a process this young (about 1 ms)."""

EARLY_MAX_AGE_S: Final = 0.5
"""Age past which a look's answer is not taken: a cold command reaches its first sync within a
fifth of a second; one that took longer (waiting for its input) may have seen the folder edited
since the look, and checks it afresh."""

Answer = tuple[tuple[int, int, int, int], int, int, int, int] | None
"""The folder's stamp (device, inode, modification and change times) and its sums (count,
modification times, sizes, name checksums); None when its entries moved while it was read."""

_LOOKS: dict[str, tuple[float, Ahead[Answer]]] = {}


def begin(memories: str) -> None:
    """Start looking at the memory folder at ``memories`` (a path with no link in its last two
    parts) in a child, for this process's first sync of it to take; nothing when it is small,
    missing or reached through a link, or when no child can be had."""
    try:
        if any(os.path.islink(p) for p in (os.path.dirname(memories), memories)):
            return
        st = os.lstat(memories)
    except OSError:
        return
    if not S_ISDIR(st.st_mode) or st.st_size < EARLY_MIN_FOLDER_BYTES or memories in _LOOKS:
        return
    from recall.forked import Ahead
    from recall.index import folder_sums  # noqa: F401 - loaded here, for the child to share

    started = time.monotonic()
    ahead = Ahead.start(_look, memories)
    if ahead is not None:
        if not _LOOKS:
            atexit.register(_stop_all)
        _LOOKS[memories] = (started, ahead)


def take(folder: Path) -> Ahead[Answer] | None:
    """The look begun at ``folder`` by :func:`begin`, now the caller's (to ask for its
    answer or stop it); None when none was begun there, or it began more than
    ``EARLY_MAX_AGE_S`` ago (it is then stopped)."""
    if not _LOOKS:
        return None
    started, ahead = _LOOKS.pop(str(folder), (0.0, None))
    if ahead is not None and time.monotonic() - started > EARLY_MAX_AGE_S:
        ahead.stop()
        return None
    return ahead


def _stop_all() -> None:
    """Stop the looks no sync took (their children killed and reaped)."""
    while _LOOKS:
        _, (_, ahead) = _LOOKS.popitem()
        ahead.stop()


def expected(stamp: tuple[int, int, int, int], sums: tuple[int, int, int, int]) -> Answer:
    """The answer a look gives when the folder is as ``stamp`` and ``sums`` say."""
    return (tuple(stamp), *sums)  # type: ignore[return-value]


def _look(memories: str) -> Answer:
    """In the child: the folder's stamp and sums, None when its entries changed meanwhile."""
    from pathlib import Path

    from recall.index.folder_sums import folder_sums

    before = _stamp(memories)
    sums, _ = folder_sums(Path(memories))
    after = _stamp(memories)
    if before is None or before != after:
        return None
    return (before, *sums)


def _stamp(memories: str) -> tuple[int, int, int, int] | None:
    """As :func:`recall.index.listing.folder_stamp`, without that module's imports."""
    try:
        st = os.stat(memories)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
