"""A memory folder summed as the index's fingerprint counts it, in one pass of ``lstat``s."""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from stat import S_IFREG

from recall.memfiles import FILE_TYPE_BITS, MEMORY_SUFFIX


def folder_sums(
    folder: Path, part: int = 0, parts: int = 1
) -> tuple[tuple[int, int, int, int], list[bytes]]:
    """The memory files :meth:`recall.memfiles.MemoryFolder.stat_files` finds in ``folder``,
    summed: how many, their modification times (ns), sizes and name checksums (CRC-32 of each
    name as the file system spells it) added up, and those names; nothing else is kept.
    Of ``parts`` calls that split the folder between them, this one stats and sums the files
    whose checksum leaves ``part`` when divided by ``parts``: their sums add up to the whole."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        return (0, 0, 0, 0), []
    crc, lstat = zlib.crc32, os.lstat
    suffix = MEMORY_SUFFIX.encode("ascii")
    count = mtimes = sizes = checksum = 0
    names: list[bytes] = []
    keep = names.append
    try:
        # listed as bytes: the names as spelled on disk, never decoded and encoded again
        for name in os.listdir(os.fsencode(folder)):
            if not name.endswith(suffix) or name[:1] == b".":
                continue
            name_sum = crc(name)
            if name_sum % parts != part:
                continue
            try:
                st = lstat(name, dir_fd=dir_fd)
            except FileNotFoundError:
                continue
            if st.st_mode & FILE_TYPE_BITS != S_IFREG:
                continue
            keep(name)
            count += 1
            mtimes += st.st_mtime_ns
            sizes += st.st_size
            checksum += name_sum
    finally:
        os.close(dir_fd)
    return (count, mtimes, sizes, checksum), names
