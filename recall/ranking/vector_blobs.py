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

_BYTE = np.arange(4, dtype=np.int64)


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
    sizes = 1 + 6 * counts
    dense = sizes >= 4 * dim
    sizes[dense] = 4 * dim
    ends = np.cumsum(sizes)
    starts = ends - sizes
    out = np.empty(int(ends[-1]), dtype=np.uint8)
    keep = ~dense[nonzero_rows]  # the entries of the rows kept sparse
    sparse_rows = np.flatnonzero(~dense)
    out[starts[sparse_rows]] = SPARSE_TAG
    index_at, value_at = _positions(starts[nonzero_rows[keep]], counts[nonzero_rows[keep]])
    out[index_at[:, None] + _BYTE[:2]] = columns[keep].astype("<u2").view(np.uint8).reshape(-1, 2)
    values = matrix[nonzero_rows[keep], columns[keep]]
    out[value_at[:, None] + _BYTE] = values.view(np.uint8).reshape(-1, 4)
    for row in np.flatnonzero(dense):
        out[starts[row] : ends[row]] = matrix[row].view(np.uint8)
    data = out.tobytes()
    return [data[start:end] for start, end in zip(starts.tolist(), ends.tolist(), strict=True)]


def pack(vector: np.ndarray) -> bytes:
    """The stored form of one vector (see :func:`pack_rows`)."""
    return pack_rows(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]


def unpack_rows(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """A C-ordered ``(n, dim)`` float32 matrix of stored vectors of either form.

    Raises ValueError naming the first blob that is neither form of a ``dim``-wide vector.
    """
    out = np.zeros((len(blobs), dim), dtype=np.float32)
    if not blobs:
        return out
    lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
    dense = lengths == 4 * dim
    if dense.all():
        joined = b"".join(blobs)
        return np.frombuffer(joined, dtype="<f4").reshape(len(blobs), dim).astype(np.float32)
    counts = (lengths - 1) // 6
    bad = ~dense & ((lengths % 6 != 1) | (counts > min(dim, MAX_SPARSE_DIM)) | (4 * dim <= lengths))
    if bad.any():
        raise _bad_blob(int(np.flatnonzero(bad)[0]), blobs, dim)
    for row in np.flatnonzero(dense):
        out[row] = np.frombuffer(blobs[row], dtype="<f4")
    sparse = np.flatnonzero(~dense)
    joined = np.frombuffer(b"".join(blobs[row] for row in sparse), dtype=np.uint8)
    sizes = lengths[sparse]
    starts = np.cumsum(sizes) - sizes
    tags = joined[starts] != SPARSE_TAG
    if tags.any():
        raise _bad_blob(int(sparse[np.flatnonzero(tags)[0]]), blobs, dim)
    each = counts[sparse]
    index_at, value_at = _positions(np.repeat(starts, each), np.repeat(each, each))
    columns = joined[index_at].astype(np.int64) | (joined[index_at + 1].astype(np.int64) << 8)
    if columns.size and int(columns.max()) >= dim:
        owner = np.repeat(sparse, each)[int(np.argmax(columns >= dim))]
        raise _bad_blob(int(owner), blobs, dim)
    values = np.ascontiguousarray(joined[value_at[:, None] + _BYTE]).view("<f4").ravel()
    out[np.repeat(sparse, each), columns] = values
    return out


def _positions(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each stored entry (``starts``: its blob's first byte, repeated once per entry of
    that blob; ``counts``: the blob's entry count, likewise), where its column number and its
    value begin."""
    if starts.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    # each entry's place within its blob: 0, 1, ... restarting where a new blob begins
    first = np.ones(starts.size, dtype=bool)
    first[1:] = starts[1:] != starts[:-1]
    begins = np.flatnonzero(first)
    lengths = np.diff(np.append(begins, starts.size))
    place = np.arange(starts.size, dtype=np.int64) - np.repeat(begins, lengths)
    index_at = starts + 1 + 2 * place
    value_at = starts + 1 + 2 * counts + 4 * place
    return index_at, value_at


def _bad_blob(row: int, blobs: Sequence[bytes], dim: int) -> ValueError:
    return ValueError(
        f"embedding blob {row} has {len(blobs[row])} bytes: neither {4 * dim} (a dense "
        f"{dim}-wide float32 vector) nor a sparse vector of that width"
    )
