"""The project's memory folder looked at on the other cores from the moment a one-shot command
starts, before its modules are imported.

``tether inject`` and ``tether hook EVENT`` run in a fresh process when no warm engine serves
them, and confirm their memory folder is as indexed with one ``lstat`` per memory file: at
30,000 memories about as long as the command's own imports. Those imports need nothing from the
folder, so :func:`begin` hands the look to a forked child (or several) as soon as the
command knows its project, and the first sync of that folder in the process
(:func:`recall.index.sync.sync`) takes the child's answer (:func:`take`) instead of making
the stats itself: at once when it confirms the folder, beside the ranking for an engine that
asks for the verdict later.

The answer describes the folder as the command began, as a check made then would: a file
edited in place after that is seen by the next command. So it is taken only within
``EARLY_MAX_AGE_S`` of the look's start (a command that waited longer, for its standard input
or a busy index, checks afresh). The child sums the folder as a sync does
(:func:`recall.index.folder_sums.folder_sums`) and hands back the folder's own stamp with it,
taken before and after: an answer from a folder whose entries changed while it was looked at,
or since (a file added, removed or renamed, the folder replaced), never matches, and neither
does one whose folder changed too recently for its times to tell a later change
(:data:`recall.index.sync.RACY_WINDOW_NS`); the sync then checks the folder itself as before.
An edit's hook waits for that answer before its own work, so its look is shared among
children, one per core, each summing the files whose name checksum falls to it, when the
folder is large enough for one child to keep it waiting (:data:`SPREAD_EVENTS`,
:data:`SPREAD_MIN_FOLDER_BYTES`); their answers count only when every part saw the same stamp
(:func:`combined`). A folder whose ``.tether`` or ``memories`` is a link is not looked at here
at all, nor a small one, whose stats cost less than the fork. A look no sync took is stopped
when the process exits, so its children never hold the command's output open.
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

    from recall.forked import Spread

EARLY_MIN_FOLDER_BYTES: Final = 64 * 1024
"""Size of the memory folder's own directory entry from which it is looked at early: on ext4
about 2,000 memory files (an entry of an 11-character name, with the directory's index and
slack, takes about 32 bytes: 958,464 bytes for networkmanager's 30,119 files), where the stats
begin to cost more than forking a process this young (about 1 ms)."""

SPREAD_EVENTS: Final = ("pre-edit", "post-edit")
"""The ``tether hook`` events whose look is shared among the cores: an edit's hook waits for
the folder's verdict before its own work, and two children end sooner than one (30,000
memories, four rounds: 263 / 234 / 200 / 191 → 207 / 194 / 184 / 179 ms a cold ``tether hook
pre-edit``). A command that ranks beside its look (``tether inject``, the prompt hook) keeps
one: a third process on two cores slowed its ranking more than the look gained (259 / 280 →
322 / 321 ms a cold inject)."""

SPREAD_MIN_FOLDER_BYTES: Final = 384 * 1024
"""Size of the memory folder's directory entry from which an edit's hook spreads its look: on
ext4 about 12,000 memory files (about 32 bytes an entry, as above), whose stats in one child
take longer than the hook's own imports (about 4 µs a file against 40–55 ms); below it the
hook does not wait for one child, and a second would only take a core from it (iproute2, 6,300
files: a cold pre-edit 106 → 114 ms spread)."""

EARLY_MAX_AGE_S: Final = 0.5
"""Age past which a look's answer is not taken: a cold command reaches its first sync within a
fifth of a second; one that took longer (waiting for its input) may have seen the folder edited
since the look, and checks it afresh."""

Answer = tuple[tuple[int, int, int, int], int, int, int, int] | None
"""The folder's stamp (device, inode, modification and change times) and its sums (count,
modification times, sizes, name checksums); None when its entries moved while it was read."""

_LOOKS: dict[str, tuple[float, Spread[Answer]]] = {}


def begin(memories: str, spread: bool = False) -> None:
    """Start looking at the memory folder at ``memories`` (a path with no link in its last two
    parts) in a child, for this process's first sync of it to take; with ``spread``, in a
    child per core, each looking at a share of the files, when the folder is large (see
    :data:`SPREAD_EVENTS`, :data:`SPREAD_MIN_FOLDER_BYTES`). Nothing when the folder is small,
    missing or reached through a link, or when no child can be had."""
    try:
        if any(os.path.islink(p) for p in (os.path.dirname(memories), memories)):
            return
        st = os.lstat(memories)
    except OSError:
        return
    if not S_ISDIR(st.st_mode) or st.st_size < EARLY_MIN_FOLDER_BYTES or memories in _LOOKS:
        return
    from recall.forked import Spread, spread_width
    from recall.index import folder_sums  # noqa: F401 - loaded here, for the child to share

    started = time.monotonic()
    parts = spread_width() if spread and st.st_size >= SPREAD_MIN_FOLDER_BYTES else 1
    looks = Spread.start(_look, [(memories, part, parts) for part in range(parts)])
    if looks is not None:
        if not _LOOKS:
            atexit.register(_stop_all)
        _LOOKS[memories] = (started, looks)


def take(folder: Path) -> Spread[Answer] | None:
    """The look begun at ``folder`` by :func:`begin`, now the caller's (to ask for its
    parts' answers, :func:`combined`, or stop it); None when none was begun there, or it
    began more than ``EARLY_MAX_AGE_S`` ago (it is then stopped)."""
    if not _LOOKS:
        return None
    started, spread = _LOOKS.pop(str(folder), (0.0, None))
    if spread is not None and time.monotonic() - started > EARLY_MAX_AGE_S:
        spread.stop()
        return None
    return spread


def _stop_all() -> None:
    """Stop the looks no sync took (their children killed and reaped)."""
    while _LOOKS:
        _, (_, spread) = _LOOKS.popitem()
        spread.stop()


def expected(stamp: tuple[int, int, int, int], sums: tuple[int, int, int, int]) -> Answer:
    """The answer a look gives when the folder is as ``stamp`` and ``sums`` say."""
    return (tuple(stamp), *sums)  # type: ignore[return-value]


def combined(answers: list[Answer]) -> Answer:
    """The answer of a whole look from its parts' (each a share of the folder's files): their
    sums added, when every part saw the folder with one same stamp; else None."""
    parts = [answer for answer in answers if answer is not None]
    if not parts or len(parts) != len(answers) or len({part[0] for part in parts}) != 1:
        return None
    return (
        parts[0][0],
        sum(part[1] for part in parts),
        sum(part[2] for part in parts),
        sum(part[3] for part in parts),
        sum(part[4] for part in parts),
    )


def _look(share: tuple[str, int, int]) -> Answer:
    """In a child: for ``share`` = (``memories``, ``part``, ``parts``), the stamp of the folder
    at ``memories`` and the sums of its ``part``-th share of ``parts``; None when its entries
    changed meanwhile."""
    from pathlib import Path

    from recall.index.folder_sums import folder_sums

    memories, part, parts = share
    before = _stamp(memories)
    sums, _ = folder_sums(Path(memories), part, parts)
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
