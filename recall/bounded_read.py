"""Reading a file whole up to a size limit, without ever asking for the limit: a buffered read
makes room for all it is asked for, and a limit raised far past any file (a user's
``TETHER_MAX_MEMORY_BYTES=99999999999``) would ask for more memory than there is."""

from __future__ import annotations

import os
from typing import BinaryIO


def read_within(handle: BinaryIO, limit: int, step: int) -> bytes | None:
    """The whole of ``handle``'s file, or None when it holds more than ``limit`` bytes (at
    most one byte over is read). Each read asks for the file's size, or ``step`` bytes more
    of a file that grew since its size was read."""
    want = min(limit, os.fstat(handle.fileno()).st_size) + 1  # one byte more: its end is seen
    parts: list[bytes] = []
    got = 0
    while True:
        part = handle.read(want)
        parts.append(part)
        got += len(part)
        if got > limit:
            return None
        if len(part) < want:
            return parts[0] if len(parts) == 1 else b"".join(parts)
        want = min(limit + 1 - got, step)
