"""The memory folder on disk: listing files, reading them, atomic writes and the writer lock."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from stat import S_ISREG
from typing import NamedTuple

from recall.errors import BadInput, StoreUnavailable

MEMORY_SUFFIX = ".md"
_TEMP_PREFIX = ".tmp-"


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


def _describe_os_error(error: OSError, target: Path) -> str:
    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return (
            f"no room to write {target} ({error.strerror}); free some space (or raise the "
            "quota or file size limit) and retry"
        )
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"{target} is not writable ({error.strerror}); check its permissions"
    return f"could not write {target}: {error.strerror or error}"


class MemoryFolder:
    """One ``memories/`` directory: the canonical store of a scope."""

    def __init__(self, path: Path, *, file_mode: int = 0o644) -> None:
        self.path = path
        self.file_mode = file_mode
        """Permissions of the files written (0o600 for the user's private global store)."""

    def scan(self) -> list[FileStat]:
        """Stat every memory file in the folder (no reads); symlinks and folders are skipped."""
        stats: list[FileStat] = []
        try:
            dir_fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        except (FileNotFoundError, NotADirectoryError):
            return stats
        try:
            stat = os.stat
            is_regular = S_ISREG
            make = FileStat._make
            append = stats.append
            names = [n for n in os.listdir(dir_fd) if n.endswith(MEMORY_SUFFIX) and n[0] != "."]
            for name in names:
                try:
                    st = stat(name, dir_fd=dir_fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if is_regular(st.st_mode):
                    append(make((name, st.st_mtime_ns, st.st_size)))
        finally:
            os.close(dir_fd)
        return stats

    def file(self, name: str) -> Path:
        """The path of a memory file by name; names that would leave the folder are refused."""
        if "/" in name or "\\" in name or name in ("", ".", "..") or "\x00" in name:
            raise BadInput(f"memory file name {name!r} is not a plain file name")
        return self.path / name

    def read_bytes(self, name: str) -> bytes:
        """Read a memory file without following a symlink out of the folder."""
        fd = os.open(self.file(name), os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    def write(self, name: str, text: str, *, exclusive: bool, durable: bool = True) -> FileStat:
        """Write a memory file atomically: temp file in the same folder, fsync, rename.

        With ``exclusive`` the write fails if the name is taken. ``durable`` = False skips the
        per-file fsync; the caller must then call :meth:`flush` before reporting success.
        """
        import secrets  # writes only: a read (every agent hook) never needs it

        target = self.file(name)
        data = text.encode("utf-8")
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
            else:
                os.replace(temp, target)
            if durable:
                self.flush_dir()
        except FileExistsError:
            raise
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise StoreUnavailable(_describe_os_error(error, target)) from None
        return FileStat(name, st.st_mtime_ns, st.st_size)

    def flush_dir(self) -> None:
        """fsync the folder so renames survive a power cut."""
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def flush(self) -> None:
        """Make every write so far durable (one sync for a whole batch)."""
        os.sync()
        self.flush_dir()

    def remove(self, name: str) -> None:
        """Delete a memory file (used by purge only)."""
        try:
            os.unlink(self.file(name))
        except FileNotFoundError:
            return
        except OSError as error:
            raise StoreUnavailable(_describe_os_error(error, self.file(name))) from None

    def clean_temp_files(self) -> int:
        """Remove temp files left by a writer that was killed mid-write; return how many."""
        removed = 0
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


@contextlib.contextmanager
def writer_lock(lock_path: Path, *, required: bool = True, mode: int = 0o644) -> Iterator[None]:
    """Hold the store's writer lock (an flock, so a killed holder releases it at once).

    With ``required`` False, a lock file that cannot be created (a read-only store, where
    nobody can write) means no lock is needed, and the body runs without one.
    """
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, mode)
    except OSError as error:
        if not required:
            yield
            return
        raise StoreUnavailable(_describe_os_error(error, lock_path)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
