"""Stored vectors keep only their nonzero entries when that is shorter, read back exactly, and
the dense blobs of earlier versions are still read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import remember

from recall.importer import import_lines
from recall.ranking import vector_blobs, vectors
from recall.ranking.embedding import HashEmbedder, from_bytes, stack_bytes, to_bytes
from recall.ranking.vector_blobs import pack, pack_rows, unpack_rows
from recall.store import MemoryStore
from tests.test_write_behind import _lines

DIM = 384
TEXTS = [
    "retry the netlink dump when the kernel answers EBUSY",
    "the pool keeps at most eight idle connections\nsrc/pool.c",
    "",  # featureless: an all-zero vector
    "naïve Unicode wörds and snake_case_names in one line",
]


def _rows() -> np.ndarray:
    rows = HashEmbedder().embed_many(TEXTS)
    dense = np.random.default_rng(7).standard_normal((1, DIM)).astype(np.float32)
    return np.vstack([rows, dense])  # the last row has no zeros: kept dense


def test_the_blob_constants_are_pinned() -> None:
    assert vector_blobs.SPARSE_TAG == 0x01
    assert vector_blobs.MAX_SPARSE_DIM == 65536


def test_rows_read_back_exactly_in_the_shorter_form() -> None:
    rows = _rows()
    blobs = pack_rows(rows)
    np.testing.assert_array_equal(unpack_rows(blobs, DIM), rows)
    for row, blob in zip(rows[:-1], blobs[:-1], strict=True):
        assert len(blob) == 1 + 6 * np.count_nonzero(row) < 4 * DIM
        assert len(blob) % 2 == 1  # never a whole number of float32 values
        assert blob[0] == vector_blobs.SPARSE_TAG
    assert blobs[2] == bytes([vector_blobs.SPARSE_TAG])  # the zero vector: the tag alone
    assert blobs[-1] == to_bytes(rows[-1])  # no shorter form: dense, as before
    assert pack(rows[0]) == blobs[0]
    assert pack_rows(np.zeros((0, DIM), dtype=np.float32)) == []


def test_a_row_where_the_sparse_form_is_no_shorter_stays_dense() -> None:
    dim = 12  # dense 48 bytes; 8 entries sparse would be 49
    row = np.zeros((1, dim), dtype=np.float32)
    row[0, :7] = 1.0
    assert len(pack_rows(row)[0]) == 43
    row[0, :8] = 1.0
    assert pack_rows(row)[0] == to_bytes(row[0])
    np.testing.assert_array_equal(unpack_rows(pack_rows(row), dim), row)


def test_wider_vectors_than_uint16_columns_stay_dense() -> None:
    row = np.zeros((1, vector_blobs.MAX_SPARSE_DIM + 1), dtype=np.float32)
    row[0, -1] = 1.0
    assert pack_rows(row) == [to_bytes(row[0])]


def test_dense_blobs_of_earlier_versions_are_read_beside_sparse_ones() -> None:
    rows = _rows()
    mixed = [to_bytes(rows[0]), *pack_rows(rows[1:])]
    np.testing.assert_array_equal(unpack_rows(mixed, DIM), rows)
    stacked = stack_bytes(mixed, DIM)
    assert stacked.flags.f_contiguous
    np.testing.assert_array_equal(stacked, rows)
    np.testing.assert_array_equal(from_bytes(pack(rows[1]), DIM), rows[1])
    np.testing.assert_array_equal(from_bytes(to_bytes(rows[1])), rows[1])


@pytest.mark.parametrize(
    "bad",
    [
        b"\x02" + pack(HashEmbedder().embed(TEXTS[0]))[1:],  # not the tag
        pack(HashEmbedder().embed(TEXTS[0]))[:-1],  # cut short
        bytes([vector_blobs.SPARSE_TAG]) + (DIM).to_bytes(2, "little") + b"\0\0\x80\x3f",
        bytes([vector_blobs.SPARSE_TAG]) + b"\0" * (6 * 300),  # longer than the dense form
    ],
    ids=["tag", "length", "column", "too-long"],
)
def test_a_damaged_blob_is_refused_by_its_row(bad: bytes) -> None:
    good = pack(HashEmbedder().embed(TEXTS[1]))
    with pytest.raises(ValueError, match="blob 1 has"):
        unpack_rows([good, bad, good], DIM)


def _stored_lengths(store: MemoryStore) -> list[int]:
    return [n for (n,) in store.conn.execute("SELECT length(vec) FROM vectors")]


def test_writes_store_the_short_form_and_read_back_what_was_embedded(
    store: MemoryStore, repo: Path
) -> None:
    remember(store, "the retry loop gives up after three tries", files=["src/retry.py"])
    lines = _lines(40)
    results = import_lines(store, lines, lambda p: store.normalize_input(p, repo), "tester")
    assert any(r.status == "created" for r in results)
    lengths = _stored_lengths(store)
    assert len(lengths) > 30 and max(lengths) < 4 * DIM
    embedder = HashEmbedder()
    found = store.conn.execute(
        "SELECT m.summary, m.details, m.files, v.vec FROM memories m "
        "JOIN vectors v ON v.memory_rowid = m.rowid ORDER BY m.rowid"
    ).fetchall()
    made = embedder.embed_many([vectors.memory_text(r[0], r[1], r[2]) for r in found])
    np.testing.assert_array_equal(unpack_rows([r[3] for r in found], DIM), made)


def test_a_store_of_dense_vectors_recalls_from_the_same_matrix(
    store: MemoryStore, repo: Path
) -> None:
    lines = _lines(40)
    import_lines(store, lines, lambda p: store.normalize_input(p, repo), "tester")
    embedder = HashEmbedder()
    _, short = vectors.load(store.conn, embedder, None)
    # as an earlier version left them: every vector dense
    for rowid, blob in store.conn.execute("SELECT memory_rowid, vec FROM vectors").fetchall():
        dense = to_bytes(unpack_rows([blob], DIM)[0])
        store.conn.execute("UPDATE vectors SET vec = ? WHERE memory_rowid = ?", (dense, rowid))
    assert set(_stored_lengths(store)) == {4 * DIM}
    _, old = vectors.load(store.conn, embedder, None)
    np.testing.assert_array_equal(old, short)
