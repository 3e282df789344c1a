"""The memory folder on disk: listing files, reading them, atomic writes."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from stat import S_IFREG, S_ISREG
from typing import NamedTuple

from recall.bounded_read import read_within
from recall.errors import BadInput, StoreUnavailable
from recall.swap_unchanged import FileChanged, swap_if_unchanged

MEMORY_SUFFIX = ".md"
FILE_TYPE_BITS = 0o170000  # the part of st_mode that S_IFMT keeps
_TEMP_PREFIX = ".tmp-"

MAX_FILE_BYTES = 64 * 1024
"""Largest memory file read: a memory is a note, and 64 KiB is some thirty pages of it, while a
file of megabytes (a log pasted by mistake, or planted) would stall every hook that reads it.
Larger files are reported by ``tether doctor`` and skipped, after reading at most this much."""

MAX_FILE_BYTES_ENV = "TETHER_MAX_MEMORY_BYTES"
"""The user's own override of :data:`MAX_FILE_BYTES`, in bytes (an environment variable: a
cloned repository's settings must not be able to raise a limit that protects against it)."""

MIN_FILE_BYTES = 1024
"""The smallest override taken: below it an ordinary memory would no longer fit."""


def max_file_bytes() -> int:
    """The size limit of a memory file in force: the user's override when set, else the
    default; an override that is not a whole number of at least :data:`MIN_FILE_BYTES` is
    refused (:class:`BadInput`)."""
    from recall.env_values import whole_number

    override = whole_number(MAX_FILE_BYTES_ENV, MIN_FILE_BYTES)
    return MAX_FILE_BYTES if override is None else override


def limit_problem(size: int, limit: int, outcome: str = "it is skipped") -> str:
    """What to tell a person about a memory file of ``size`` bytes over ``limit``, and what
    came of it (``outcome``: a file read is skipped, one to be written is not written)."""
    return (
        f"is {size:,} bytes, over the limit of {limit:,} bytes for a memory file; {outcome}: "
        f"move the bulk elsewhere and keep the memory short (or set "
        f"{MAX_FILE_BYTES_ENV} to a larger number of bytes)"
    )


NOT_WRITTEN = "nothing is written"  # what comes of a file over the limit that was to be written


class OversizedFile(Exception):
    """A memory file over the size limit (see :data:`MAX_FILE_BYTES`); nothing was parsed."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(limit_problem(size, limit))
        self.size = size
        self.limit = limit


class FileStat(NamedTuple):
    """What the index compares to decide whether a memory file changed (a tuple: cheap at 10k)."""

    name: str
    mtime_ns: int
    size: int


def file_sha(data: bytes) -> str:
    """Hash of a file's raw bytes, to tell a touched-but-unchanged file from an edited one."""
    import hashlib  # only files that changed are hashed: reading an unchanged store hashes none

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def is_memory_name(name: str) -> bool:
    """Whether a directory entry is a memory file (not a temp file, not hidden)."""
    return name.endswith(MEMORY_SUFFIX) and not name.startswith(".")


def check_plain_name(name: str) -> None:
    """Refuse a memory file name that is not a plain name inside the folder."""
    if "/" in name or "\\" in name or name in ("", ".", "..") or "\x00" in name:
        raise BadInput(f"memory file name {name!r} is not a plain file name")


def describe_os_error(error: OSError, target: Path) -> str:
    """What to tell a person about ``error``, met writing ``target``, and what to do."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return (
            f"no room to write {target} ({error.strerror}); free some space (or raise the "
            "quota or file size limit) and retry"
        )
    if error.errno == errno.EROFS:
        return (
            f"{target} is on a read-only file system ({error.strerror}); work in a writable clone"
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        # a file is written beside its name and renamed into place: the folder must allow it
        if not os.access(target.parent, os.W_OK | os.X_OK):
            return (
                f"the folder {target.parent} is not writable, so {target.name} could not be "
                f"written ({error.strerror}); check that folder's permissions"
            )
        return f"{target} is not writable ({error.strerror}); check its permissions"
    return f"could not write {target}: {error.strerror or error}"


class MemoryFolder:
    """One ``memories/`` directory: the canonical store of a scope."""

    def __init__(self, path: Path, *, file_mode: int = 0o644) -> None:
        self.path = path
        self.file_mode = file_mode
        """Permissions of the files written (0o600 for the user's private global store)."""
        self.max_bytes = max_file_bytes()
        """Largest file read or written (see :data:`MAX_FILE_BYTES`)."""

    def scan(self) -> list[FileStat]:
        """Stat every memory file in the folder (no reads); symlinks and folders are skipped."""
        make = FileStat._make
        return [make((name, st.st_mtime_ns, st.st_size)) for name, st in self.stat_files()]

    def stat_files(self) -> Iterator[tuple[str, os.stat_result]]:
        """Each memory file of the folder (a plain file, not a link or a folder) with its
        ``lstat``, in directory order; nothing is read and nothing is kept."""
        try:
            dir_fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        except (FileNotFoundError, NotADirectoryError):
            return
        try:
            stat = os.stat
            is_regular = S_ISREG
            names = [n for n in os.listdir(dir_fd) if n.endswith(MEMORY_SUFFIX) and n[0] != "."]
            for name in names:
                try:
                    st = stat(name, dir_fd=dir_fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if is_regular(st.st_mode):
                    yield name, st
        finally:
            os.close(dir_fd)

    def stat_listed(self, names: list[bytes]) -> tuple[int, int, int] | None:
        """How many of ``names`` there are, and their modification times (ns) and sizes
        summed: each ``lstat`` once, nothing kept. None when one of them is gone or is no
        longer a plain file."""
        try:
            dir_fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        except (FileNotFoundError, NotADirectoryError):
            return None
        lstat = os.lstat
        mtimes = sizes = 0
        try:
            for name in names:
                st = lstat(name, dir_fd=dir_fd)
                # S_ISREG without a call per file (30k files: a few ms of a hook's budget)
                if st.st_mode & FILE_TYPE_BITS != S_IFREG:
                    return None
                mtimes += st.st_mtime_ns
                sizes += st.st_size
        except FileNotFoundError:
            return None
        finally:
            os.close(dir_fd)
        return len(names), mtimes, sizes

    def file(self, name: str) -> Path:
        """The path of a memory file by name; names that would leave the folder are refused."""
        check_plain_name(name)
        return self.path / name

    def read_bytes(self, name: str) -> bytes:
        """Read a memory file without following a symlink out of the folder.

        Reads at most one byte over the size limit: a larger file raises
        :class:`OversizedFile` without being read whole, nor the limit asked of a read.
        """
        fd = os.open(self.file(name), os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            # a file that grows while it is read is followed the default limit's worth at a time
            data = read_within(handle, self.max_bytes, MAX_FILE_BYTES)
            if data is None:
                raise OversizedFile(os.fstat(fd).st_size, self.max_bytes)
            return data

    def write(
        self,
        name: str,
        text: str,
        *,
        exclusive: bool,
        durable: bool = True,
        replacing: bytes | None = None,
    ) -> FileStat:
        """Write a memory file atomically: temp file in the same folder, fsync, rename.

        With ``exclusive`` the write fails if the name is taken. ``durable`` = False skips the
        per-file fsync; the caller must then call :meth:`flush` before reporting success.
        With ``replacing``, the bytes the new text was made from, the file is replaced only if
        it still holds them just before the rename, else :class:`FileChanged` and nothing is
        replaced (:mod:`recall.swap_unchanged`).
        """
        data = text.encode("utf-8")
        stat = self._write_data(
            name, data, exclusive=exclusive, durable=durable, replacing=replacing
        )
        if isinstance(stat, bytes):  # written into while replaced: that text goes back first
            self._put_back(name, stat, data)
            raise FileChanged
        return stat

    def _put_back(self, name: str, left: bytes, written: bytes) -> None:
        """Put back ``left``, the text another process wrote into a file while a rewrite
        replaced it, over ``written``, the rewrite; :class:`StoreUnavailable` naming the file
        when that cannot be done (the file changed once more since)."""
        try:
            again = self._write_data(name, left, exclusive=False, durable=True, replacing=written)
        except FileChanged:
            again = b""
        if isinstance(again, bytes):
            raise StoreUnavailable(
                f"{self.file(name)} was written by another process at the moment it was "
                "rewritten, and again since: an edit of either may be missing from it; check "
                "the file, then run the command again"
            )

    def _write_data(
        self, name: str, data: bytes, *, exclusive: bool, durable: bool, replacing: bytes | None
    ) -> FileStat | bytes:
        """:meth:`write` of ``data``: its stat, or with ``replacing``, the text another process
        wrote into the file while it was replaced (:func:`swap_if_unchanged`)."""
        import secrets  # writes only: a read (every agent hook) never needs it

        target = self.file(name)
        left: bytes | None = None
        if len(data) > self.max_bytes:
            raise BadInput(
                f"{target} would be written but "
                f"{limit_problem(len(data), self.max_bytes, NOT_WRITTEN)}"
            )
        temp = self.path / f"{_TEMP_PREFIX}{secrets.token_hex(6)}-{name}"
        try:
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, self.file_mode)
            except FileNotFoundError:
                self.path.mkdir(parents=True, exist_ok=True)
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, self.file_mode)
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                if durable:
                    os.fsync(fd)
                st = os.fstat(fd)  # rename keeps mtime and size, so no stat afterwards
            finally:
                os.close(fd)
            if exclusive:
                try:
                    os.link(temp, target)
                finally:
                    os.unlink(temp)
            elif replacing is not None:
                left = swap_if_unchanged(temp, target, replacing, self.max_bytes)
            else:
                os.replace(temp, target)
            if durable:
                self.flush_dir()
        except FileExistsError:
            raise
        except FileChanged:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise StoreUnavailable(describe_os_error(error, target)) from None
        return FileStat(name, st.st_mtime_ns, st.st_size) if left is None else left

    def write_batch(self, items: Iterable[tuple[str, str]]) -> Iterator[FileStat]:
        """Write new memory files ``(name, text)`` atomically each (temp file, rename), without
        a sync per file: the caller calls :meth:`flush` once after the last. A file appears
        whole under its name or not at all. The names must be plain and free (checked under
        the writer lock). Yields each file's stat as it is written, so a caller can undo the
        ones written when a later one fails.
        """
        import secrets  # writes only: a read (every agent hook) never needs it

        token = secrets.token_hex(6)  # one per batch: the names in it are distinct
        try:
            dir_fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            self.path.mkdir(parents=True, exist_ok=True)
            dir_fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        try:
            for name, text in items:
                check_plain_name(name)  # a name that would leave the folder is refused
                data = text.encode("utf-8")
                if len(data) > self.max_bytes:
                    raise BadInput(
                        f"{self.path / name} would be written but "
                        f"{limit_problem(len(data), self.max_bytes, NOT_WRITTEN)}"
                    )
                temp = f"{_TEMP_PREFIX}{token}-{name}"
                try:
                    fd = os.open(temp, flags, self.file_mode, dir_fd=dir_fd)
                    try:
                        view = memoryview(data)
                        while view:
                            view = view[os.write(fd, view) :]
                        st = os.fstat(fd)  # rename keeps mtime and size
                    finally:
                        os.close(fd)
                    os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                except OSError as error:
                    with contextlib.suppress(OSError):
                        os.unlink(temp, dir_fd=dir_fd)
                    raise StoreUnavailable(describe_os_error(error, self.path / name)) from None
                yield FileStat(name, st.st_mtime_ns, st.st_size)
        finally:
            os.close(dir_fd)

    def flush_dir(self) -> None:
        """fsync the folder so renames survive a power cut."""
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def flush(self) -> None:
        """Make every write so far durable (one sync of the folder's filesystem for a whole
        batch)."""
        from recall.fs_sync import sync_filesystem

        sync_filesystem(self.path)
        self.flush_dir()

    def remove(self, name: str) -> None:
        """Delete a memory file (used by purge only)."""
        try:
            os.unlink(self.file(name))
        except FileNotFoundError:
            return
        except OSError as error:
            raise StoreUnavailable(describe_os_error(error, self.file(name))) from None

    def clean_temp_files(self, names: Iterable[str] | None = None) -> int:
        """Remove temp files left by a writer that was killed mid-write; return how many. The
        caller holds the writers' lock (every write makes its temp file under it), and may give
        the folder's ``names`` as it just listed them."""
        removed = 0
        if names is None:
            try:
                names = os.listdir(self.path)
            except FileNotFoundError:
                return 0
        for name in names:
            if name.startswith(_TEMP_PREFIX):
                with contextlib.suppress(OSError):
                    os.unlink(self.path / name)
                    removed += 1
        return removed
