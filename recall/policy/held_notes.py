"""A session's own memory command, noted while another connection held the index.

A hook runs as a short-lived process. When an import, a reindex or an editor's server holds the
index past the hook's wait, the hook cannot keep the note in memory until the index is free, as
the language server does (``lsp_server.hint_state``). So it keeps the note as a small file in
the store's ``cache`` folder, one file per session. The hint policy reads the file as if the
note were written (:class:`recall.policy.hints.HintLedger`), and the next process of that
session to get the index writes the note there and removes the file.

The ``cache`` folder is the store's own (:mod:`recall.containment` refuses a store where it is a
link); the file is created and read without following a link at its name, so a file committed
there by a repository can neither redirect the write nor be read through.
"""

from __future__ import annotations

import contextlib
import errno
import os
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


def keep(folder: Path, session: str) -> None:
    """Keep the note that ``session`` ran a memory command of its own.

    Raises :class:`OSError` when the folder cannot be written (a read-only checkout), and when
    something other than a held note (a link above all) already has the file's name.
    """
    folder.mkdir(mode=0o700, exist_ok=True)
    path = note_path(folder, session)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        if is_kept(folder, session):  # kept already by an earlier hook of the session
            return
        raise
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(session)


def is_kept(folder: Path, session: str) -> bool:
    """Whether ``session``'s note is held in ``folder``: a plain file that names the session."""
    try:
        fd = os.open(note_path(folder, session), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            return False
        raise
    wanted = session.encode("utf-8")
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read(len(wanted) + 1) == wanted
        except OSError:  # a folder under the note's name: no note
            return False


def given_back(folder: Path, session: str) -> None:
    """Remove ``session``'s held note, once it is written in the index."""
    with contextlib.suppress(FileNotFoundError):
        note_path(folder, session).unlink()
