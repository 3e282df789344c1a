"""Lists of integers stored as blobs: little-endian 32-bit, whatever the machine."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from itertools import chain

_SWAP = sys.byteorder != "little"


def pack(values: Iterable[int]) -> bytes:
    """Pack integers (each below 2**31) into a blob."""
    packed = array("i", values)
    if _SWAP:
        packed.byteswap()
    return packed.tobytes()


def unpack(blob: bytes | None) -> array[int]:
    """The integers of a blob made by :func:`pack`."""
    values = array("i")
    if blob:
        values.frombytes(blob)
        if _SWAP:
            values.byteswap()
    return values


def pack_near(near: dict[int, int]) -> bytes:
    """Pack co-change counts as (identity, count) pairs, in no particular order (readers
    sort the few they need; sorting every file's list on each write would cost more)."""
    return pack(chain.from_iterable(near.items()))


def unpack_near(blob: bytes | None) -> list[tuple[int, int]]:
    """The (identity, count) pairs of a blob made by :func:`pack_near`."""
    values = unpack(blob)
    return list(zip(values[::2], values[1::2], strict=True))
