"""The stored form of memory vectors: a vector with few nonzero entries is kept as those.

A hashed bag of words puts a memory on 15–50 of its 384 columns, so its dense form (1,536
bytes, two rows to an index page) is nine parts in ten zeros: at 30,000 memories those zeros
were most of the index, written twice by every import (log, then checkpoint). A stored vector
is one of two forms, told apart by length alone:

- dense: ``4 * dim`` bytes, little-endian float32 (what every earlier version wrote);
- sparse: one :data:`SPARSE_TAG` byte, then ``k`` little-endian uint16 column numbers in
  increasing order, then their ``k`` float32 values (``1 + 6k`` bytes), used whenever it is
  shorter than the dense form.

A sparse blob's length is odd, so it is never a whole number of float32 values: a version
that knows only the dense form refuses it (a clear error) rather than reading it as numbers.
Both forms give back exactly the float32 values that were stored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SPARSE_TAG = 0x01
"""First byte of a sparse blob. Any fixed value would do; the odd length is what keeps it
apart from a dense blob."""

MAX_SPARSE_DIM = 1 << 16
"""Column numbers are stored as uint16, so only vectors up to this width are kept sparse."""

_TAG, _COLUMNS, _VALUES, _DENSE = range(4)  # the parts of a blob, in the order they are laid


def pack_rows(matrix: np.ndarray) -> list[bytes]:
    """The stored form of each row of ``matrix`` (``(n, dim)``): sparse where that is shorter."""
    matrix = np.ascontiguousarray(matrix, dtype="<f4")
    rows, dim = matrix.shape
    if rows == 0:
        return []
    if dim > MAX_SPARSE_DIM:
        return [row.tobytes() for row in matrix]
    nonzero_rows, columns = np.nonzero(matrix)  # row by row, columns increasing
    counts = np.bincount(nonzero_rows, minlength=rows)
    dense = 1 + 6 * counts >= 4 * dim
    parts = _parts(counts, dense, dim)
    labels = _labels(parts)
    out = np.empty(labels.size, dtype=np.uint8)
    kept = ~dense[nonzero_rows]  # the entries of the rows kept sparse
    out[labels == _TAG] = SPARSE_TAG
    out[labels == _COLUMNS] = columns[kept].astype("<u2").view(np.uint8)
    out[labels == _VALUES] = matrix[nonzero_rows[kept], columns[kept]].view(np.uint8)
    out[labels == _DENSE] = matrix[dense].view(np.uint8).ravel()
    ends = np.cumsum(parts.sum(axis=1))
    data = out.tobytes()
    return [
        data[start:end]
        for start, end in zip((ends - parts.sum(axis=1)).tolist(), ends.tolist(), strict=True)
    ]


def pack(vector: np.ndarray) -> bytes:
    """The stored form of one vector (see :func:`pack_rows`)."""
    return pack_rows(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]


def unpack_rows(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """A ``(n, dim)`` float32 matrix (column-major, as recall ranks from it) of stored vectors
    of either form.

    Raises ValueError naming the first blob that is neither form of a ``dim``-wide vector.
    """
    out = np.zeros((len(blobs), dim), dtype=np.float32, order="F")
    if not blobs:
        return out
    lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
    dense = lengths == 4 * dim
    counts = np.where(dense, 0, (lengths - 1) // 6)
    bad = ~dense & ((lengths % 6 != 1) | (lengths > 4 * dim))
    if bad.any():
        raise _bad_blob(int(np.flatnonzero(bad)[0]), blobs, dim)
    labels = _labels(_parts(counts, dense, dim))
    joined = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    tags = joined[labels == _TAG]
    if (tags != SPARSE_TAG).any():
        raise _bad_blob(int(np.flatnonzero(~dense)[np.argmax(tags != SPARSE_TAG)]), blobs, dim)
    columns = joined[labels == _COLUMNS].view("<u2")
    owners = np.repeat(np.arange(len(blobs)), counts)
    if columns.size and int(columns.max()) >= dim:
        raise _bad_blob(int(owners[np.argmax(columns >= dim)]), blobs, dim)
    out[owners, columns] = joined[labels == _VALUES].view("<f4")
    out[dense] = joined[labels == _DENSE].view("<f4").reshape(-1, dim)
    return out


def _parts(counts: np.ndarray, dense: np.ndarray, dim: int) -> np.ndarray:
    """Bytes of each part (tag, columns, values, dense values) of each row's blob."""
    parts = np.zeros((counts.size, 4), dtype=np.int64)
    parts[:, _TAG] = ~dense
    parts[:, _COLUMNS] = np.where(dense, 0, 2 * counts)
    parts[:, _VALUES] = np.where(dense, 0, 4 * counts)
    parts[:, _DENSE] = np.where(dense, 4 * dim, 0)
    return parts


def _labels(parts: np.ndarray) -> np.ndarray:
    """For every byte of the blobs laid end to end, which part it belongs to."""
    kinds = np.tile(np.arange(4, dtype=np.uint8), parts.shape[0])
    return np.repeat(kinds, parts.ravel())


def _bad_blob(row: int, blobs: Sequence[bytes], dim: int) -> ValueError:
    return ValueError(
        f"embedding blob {row} has {len(blobs[row])} bytes: neither {4 * dim} (a dense "
        f"{dim}-wide float32 vector) nor a sparse vector of that width"
    )
