"""The cached vector matrix on disk: its file names, and the columns one query needs, read in
plain Python.

:mod:`recall.ranking.vectors` writes the cache with numpy (``.npy`` files: a column-major
float32 matrix and its int64 rowids) under a stamp of the index state. A short-lived process
(a hook, ``tether inject``) reads here only the few columns its query touches, which costs
far less than importing numpy; anything unexpected in the files sends it back to numpy.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from recall.index.rows import index_stamp

_MAGIC = b"\x93NUMPY"
_DESCR = re.compile(r"'descr':\s*'([^']*)'")
_FORTRAN = re.compile(r"'fortran_order':\s*(True|False)")
_SHAPE = re.compile(r"'shape':\s*\(([^)]*)\)")
_MAX_HEADER = 10_000  # bytes; numpy refuses longer headers too (``max_header_size``)
_UNREADABLE = (OSError, MemoryError, ValueError, OverflowError)


def complete_stamp(conn: sqlite3.Connection, model: str) -> str:
    """What ``meta.vectors_complete`` says once every memory has a vector from ``model``."""
    return f"{index_stamp(conn)}-{model}"


def vectors_complete(conn: sqlite3.Connection, model: str) -> bool:
    """Whether every memory of the index has a stored vector from ``model`` (nothing to add)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'vectors_complete'").fetchone()
    return row is not None and row[0] == complete_stamp(conn, model)


def cache_stamp(conn: sqlite3.Connection, model: str, dim: int) -> str:
    """The stamp the cache files of the index's current state are named with."""
    return f"{index_stamp(conn)}-{file_safe(model)}-{dim}"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def file_safe(name: str) -> str:
    """``name`` fit for a file name on any system (a provider's "org/model" has a slash);
    a name that had to change carries a checksum of the original, so two never meet."""
    safe = _UNSAFE.sub("_", name)
    if safe == name:
        return name
    import zlib  # only for provider names that need it

    return f"{safe}_{zlib.crc32(name.encode('utf-8', 'surrogatepass')):08x}"


def cache_paths(cache_dir: Path, stamp: str) -> tuple[Path, Path]:
    """(matrix file, rowids file) of one stamp."""
    return cache_dir / f"vectors-{stamp}.npy", cache_dir / f"rowids-{stamp}.npy"


@dataclass(frozen=True)
class _Layout:
    descr: str
    fortran: bool
    shape: tuple[int, ...]
    offset: int

    def is_matrix(self, dim: int) -> bool:
        """Whether this is a float32 ``(rows, dim)`` matrix laid out column after column.

        numpy records ``fortran_order: False`` for a matrix of at most one row (it is both
        C- and Fortran-contiguous), and its bytes are then the same either way.
        """
        if self.descr != "<f4" or len(self.shape) != 2 or self.shape[1] != dim:
            return False
        return self.fortran or self.shape[0] <= 1


def _layout(handle: BinaryIO) -> _Layout | None:
    """The header of an ``.npy`` file (format versions 1 to 3), or None if it is not one."""
    head = handle.read(8)
    if len(head) != 8 or not head.startswith(_MAGIC) or head[6] not in (1, 2, 3):
        return None
    size_bytes = 2 if head[6] == 1 else 4
    raw_size = handle.read(size_bytes)
    if len(raw_size) != size_bytes:
        return None
    header_size = int.from_bytes(raw_size, "little")
    if header_size > _MAX_HEADER:
        return None
    header = handle.read(header_size).decode("latin-1")
    descr, fortran, shape = _DESCR.search(header), _FORTRAN.search(header), _SHAPE.search(header)
    if descr is None or fortran is None or shape is None:
        return None
    try:
        dims = tuple(int(part) for part in shape.group(1).split(",") if part.strip())
    except ValueError:
        return None
    if any(size < 0 for size in dims):
        return None
    return _Layout(descr.group(1), fortran.group(1) == "True", dims, handle.tell())


def _whole(handle: BinaryIO, layout: _Layout, itemsize: int) -> bool:
    """Whether the file holds exactly the data its header announces (not cut short, not
    grown, not a header claiming more than the file could ever hold)."""
    count = 1
    for size in layout.shape:
        count *= size
    return os.fstat(handle.fileno()).st_size == layout.offset + count * itemsize


def _values(handle: BinaryIO, typecode: str, count: int) -> array | None:
    """``count`` little-endian values of ``typecode`` from the handle's position."""
    values = array(typecode)
    data = handle.read(count * values.itemsize)
    if len(data) != count * values.itemsize:
        return None
    values.frombytes(data)
    if sys.byteorder != "little":
        values.byteswap()
    return values


@dataclass(frozen=True)
class Columns:
    """The rowids of the cached matrix and the columns a query asked for."""

    rowids: array
    columns: dict[int, array]


def rows_cached(cache_dir: Path, stamp: str, dim: int) -> int | None:
    """How many rows the cached matrix of ``stamp`` has, or None if it is missing or unusable."""
    matrix_path, _ = cache_paths(cache_dir, stamp)
    try:
        with open(matrix_path, "rb") as handle:
            layout = _layout(handle)
    except _UNREADABLE:
        return None
    if layout is None or not layout.is_matrix(dim):
        return None
    return layout.shape[0]


def read_columns(cache_dir: Path, stamp: str, dim: int, wanted: list[int]) -> Columns | None:
    """The rowids and the ``wanted`` columns of the cached matrix of ``stamp``.

    None when the files are missing, of another layout than ``vectors.py`` writes, cut short,
    damaged or disagreeing on the row count: the caller then takes the numpy path, which
    rewrites them. Never raises.
    """
    matrix_path, rowid_path = cache_paths(cache_dir, stamp)
    try:
        with open(rowid_path, "rb") as handle:
            layout = _layout(handle)
            if layout is None or layout.descr != "<i8" or len(layout.shape) != 1:
                return None
            if not _whole(handle, layout, 8):
                return None
            rowids = _values(handle, "q", layout.shape[0])
        with open(matrix_path, "rb") as handle:
            layout = _layout(handle)
            if layout is None or not layout.is_matrix(dim) or rowids is None:
                return None
            rows = len(rowids)
            if layout.shape[0] != rows or not _whole(handle, layout, 4):
                return None
            columns: dict[int, array] = {}
            for column in sorted(set(wanted)):
                if not 0 <= column < dim:
                    return None
                handle.seek(layout.offset + column * rows * 4)
                values = _values(handle, "f", rows)
                if values is None:
                    return None
                columns[column] = values
    except _UNREADABLE:
        return None
    return Columns(rowids, columns)
