"""Keeping a repository's store inside the repository.

A cloned repository is untrusted input: anything in its ``.tether/`` folder was chosen by
whoever published it, symbolic links included. Tether writes into that folder (the index, the
lock, the vector cache, the hooks' log, new memory files), so a link committed there could send
those writes anywhere the user can write, a shell start-up file among them. The rules:

1. The files Tether derives and writes itself (:data:`DERIVED_FILES`, the ``cache`` folder)
   are never links: Tether always creates them as plain files, so a link there was put there.
2. The store's folder and its ``memories`` folder may be links (someone may keep the store
   elsewhere in the same tree), as long as they resolve inside the repository.
3. A repository's settings file is read only when it resolves inside the repository.

A store that breaks a rule is refused as a whole, naming the link and what to do; nothing in it
is read or written until it is mended. The user's own global store is the user's choice and is
not checked. Files are also opened with ``O_NOFOLLOW`` where Tether creates them, so a link
made after the check is not followed either.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO, Final

from recall.errors import StoreUnavailable

DRAFTS_FOLDER: Final = "drafts"
"""The store's folder of the editor's drafts, which the language server creates itself (with a
``.gitignore`` of ``*``, so it is never committed)."""

DERIVED_FILES: Final = (
    "index.db",
    "index.db-wal",
    "index.db-shm",
    "index.db-journal",
    "index.db-swap.lock",
    "index.db-rebuild",
    "index.db-rebuild-wal",
    "index.db-rebuild-shm",
    "index.db-rebuild-journal",
    "index.db-rebuild-swap.lock",
    "write.lock",
    "hooks.log",
    "cache",
    DRAFTS_FOLDER,
)
"""Names in a store's folder that Tether creates itself: a link under one of these names was
put there by someone else, and following it would write outside the store."""

LINKABLE_FOLDERS: Final = ("", "memories")
"""The store's folder itself ("") and its memory folder: links allowed, inside the repository."""


class UnsafeStore(StoreUnavailable):
    """A repository's store holds a link that would lead Tether's reads or writes outside it."""


def is_inside(path: Path, root: Path) -> bool:
    """Whether ``path``, with every link resolved, lies in ``root`` (also resolved)."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _refusal(link: Path, why: str) -> UnsafeStore:
    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    return UnsafeStore(
        f"{link} is a symbolic link (to {target}) {why}; Tether reads and writes nothing in "
        f"this store while it is there. If you did not make it, the repository did: remove it "
        f"(`rm {link}`) and run the command again"
    )


def check_project_store(base: Path, repo_root: Path) -> None:
    """Refuse a project store whose links lead outside ``repo_root`` (see the module's rules).

    Costs a few ``lstat`` calls, so every opening of a store can afford it.
    """
    for name in LINKABLE_FOLDERS:
        folder = base / name if name else base
        if folder.is_symlink() and not is_inside(folder, repo_root):
            raise _refusal(folder, f"that leads outside the repository {repo_root}")
    for name in DERIVED_FILES:
        path = base / name
        if path.is_symlink():
            raise _refusal(path, "where Tether keeps a file it writes itself")


def refuse_link(path: Path) -> None:
    """Raise :class:`UnsafeStore` when ``path``, a folder Tether creates and writes itself in a
    project store, is a link: checked again just before writing there, since a link may have
    come (a pull, a checkout) after the store was opened."""
    if path.is_symlink():
        raise _refusal(path, "where Tether keeps a folder it writes itself")


def repository_file_inside(path: Path, repo_root: Path) -> bool:
    """Whether a repository's own file (a settings file) may be read: not a link out of it."""
    return not path.is_symlink() or is_inside(path, repo_root)


def open_append_no_follow(path: Path, mode: int = 0o644) -> int:
    """Open ``path`` for appending, creating it, without following a link at its name.

    Raises :class:`OSError` when ``path`` is a link (``ELOOP``) or anything but a plain file: a
    pipe put there would block every writer until something reads it (the open does not wait
    for a reader), a device would take the lines elsewhere.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = os.open(path, flags, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a plain file", str(path))
        os.set_blocking(fd, True)  # a plain file's writes never wait anyway
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_plain(path: Path | str, *, follow_link: bool = True) -> BinaryIO:
    """``path``, a plain file, open for reading.

    Raises :class:`FileNotFoundError` when there is none, and :class:`OSError` saying why (its
    ``strerror``) when it is anything but a plain file: a named pipe, which an unpacked archive
    can hold under any name (a tracked source file, a settings file), would block the read
    until something writes to it, and a device such as ``/dev/zero`` never ends. The open
    itself never waits for a pipe's writer. With ``follow_link`` false, a link is refused too.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_link else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a plain file but a pipe, a device or a folder")
        os.set_blocking(fd, True)  # a plain file's reads never wait anyway
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_plain_prefix(path: Path | str, size: int, *, follow_link: bool = True) -> bytes:
    """At most ``size`` bytes from the start of ``path``, a plain file; raises as
    :func:`open_plain` does."""
    with open_plain(path, follow_link=follow_link) as handle:
        return handle.read(size)


def read_plain_file(path: Path, limit: int, *, follow_link: bool = True) -> bytes:
    """The bytes of ``path``, a plain file a repository brings (a settings file, the purged ids),
    read whole only when it holds at most ``limit`` bytes: a file of gigabytes (a sparse one
    costs an archive nothing) is never held in memory whole.

    Raises as :func:`read_plain_prefix` does, and :class:`OSError` (``EFBIG``) when the file is
    over ``limit``.
    """
    data = read_plain_prefix(path, limit + 1, follow_link=follow_link)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"over {limit:,} bytes, more than such a file ever needs")
    return data
