"""A session's own memory command, noted while another connection held the index.

A hook runs as a short-lived process. When an import, a reindex or an editor's server holds the
index past the hook's wait, the hook cannot keep the note in memory until the index is free, as
the language server does (``lsp_server.hint_state``). So it keeps the note as a small file in
the store's ``cache`` folder, one file per session. The hint policy reads the file as if the
note were written (:class:`recall.policy.hints.HintLedger`), and the next hook of that session
to decide on hints with the index free (a prompt, another memory command, an edit of a file
with gotchas) writes the note there and removes the file. Notes of sessions idle for
:data:`STALE_AFTER_DAYS` are removed when another is kept.

The ``cache`` folder is the store's own (:mod:`recall.containment` refuses a store where it is a
link), and each use opens it without following a link and works through that descriptor, so a
link put there after the store was opened is refused, not followed. A note is written under a
temporary name and renamed into place, which replaces a link at its name rather than
following it, and it is read only when it is a plain file, so a file committed there by a
repository can neither redirect the write nor be read through, and a pipe cannot stall a hook.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Final

PREFIX: Final = "self-serve-"
"""A held note's file name: this prefix and the session id's bytes in hex (a session id is any
string an agent sends; in hex it is a safe file name)."""

LONGEST_HEX: Final = 200
"""The longest session id kept in the name, in hex digits, so the name stays within the 255
bytes of a file name; a longer id is named by its SHA-256 instead (hashlib is loaded only then:
an edit hook is a whole process on the agent's clock)."""


def note_path(folder: Path, session: str) -> Path:
    """The file that holds ``session``'s note in ``folder`` (the store's ``cache`` folder)."""
    name = session.encode("utf-8").hex()
    if len(name) > LONGEST_HEX:
        import hashlib

        name = "sha256-" + hashlib.sha256(session.encode("utf-8")).hexdigest()
    return folder / (PREFIX + name)


STALE_AFTER_DAYS: Final = 30
"""Days after which a held note is removed: a session idle that long is over, and its note
could only ever matter to it (a session that ended with the index held never gives it back)."""

_TEMP: Final = "tmp-"
"""Between :data:`PREFIX` and a random token: a note being written (never a session's name,
which is hex or ``sha256-``), removed with the stale notes if its writer was killed."""


def keep(folder: Path, session: str) -> None:
    """Keep the note that ``session`` ran a memory command of its own.

    Raises :class:`OSError` when the folder cannot be written (a read-only checkout, a full
    disk), is a link, or a folder has the note's name; nothing is left half-written.
    """
    folder.mkdir(mode=0o700, exist_ok=True)
    with _opened(folder) as dir_fd:
        _sweep(dir_fd)
        temp = f"{PREFIX}{_TEMP}{os.urandom(6).hex()}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(temp, flags, 0o600, dir_fd=dir_fd)
        try:
            try:
                view = memoryview(session.encode("utf-8"))
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            # a link at the name is replaced, never followed
            name = note_path(folder, session).name
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise


@contextlib.contextmanager
def _opened(folder: Path) -> Iterator[int]:
    """A descriptor of ``folder`` itself, never of what a link at its name points to (raises
    :class:`OSError` for a link, or when it is missing or not a folder)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        yield fd
    finally:
        os.close(fd)


def _sweep(dir_fd: int) -> None:
    """Remove the notes (and notes half-written) untouched for :data:`STALE_AFTER_DAYS`."""
    import time

    oldest = time.time() - STALE_AFTER_DAYS * 86_400
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            if not entry.name.startswith(PREFIX):
                continue
            with contextlib.suppress(OSError):  # gone meanwhile, or not ours to remove
                if entry.stat(follow_symlinks=False).st_mtime < oldest:
                    os.unlink(entry.name, dir_fd=dir_fd)


def is_kept(folder: Path, session: str) -> bool:
    """Whether ``session``'s note is held in ``folder``: a plain file that names the session."""
    wanted = session.encode("utf-8")
    try:
        with _opened(folder) as dir_fd:
            # never through a link; a pipe planted at the name must not block the hook
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
            fd = os.open(note_path(folder, session).name, flags, dir_fd=dir_fd)
    except OSError:  # no folder or no note, a link, or not readable: no note to go by
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder, a pipe, a device: no note
            return False
        return os.read(fd, len(wanted) + 1) == wanted
    except OSError:
        return False
    finally:
        os.close(fd)


def given_back(folder: Path, session: str) -> None:
    """Remove ``session``'s held note, once it is written in the index. The index holds the
    note by then, so a note that cannot be removed (a read-only folder) is left for the sweep
    of :data:`STALE_AFTER_DAYS` rather than failing the session's bookkeeping."""
    with contextlib.suppress(OSError), _opened(folder) as dir_fd:
        os.unlink(note_path(folder, session).name, dir_fd=dir_fd)
